# transfertop: build, test, install.
#   make                      debug build
#   make test                 all tests
#   make install PREFIX=DIR   release binary in DIR/bin, themes in DIR/share/transfertop/themes
PREFIX ?= /usr/local
SCRATCH ?= .build
SWIFT ?= swift
DESTDIR ?=

.PHONY: all build release test test-cli install uninstall clean

all: build

build:
	$(SWIFT) build --scratch-path $(SCRATCH) --product transfertop

release:
	$(SWIFT) build -c release --scratch-path $(SCRATCH) --product transfertop

test:
	$(SWIFT) test --scratch-path $(SCRATCH)

# The CLI tests drive the monitor in tmux; install it if missing (Debian/Ubuntu).
test-cli:
	@command -v tmux >/dev/null || (apt-get install -y tmux || sudo apt-get install -y tmux)
	$(SWIFT) test --scratch-path $(SCRATCH) --filter TransferTopCLITests

install: release
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/share/transfertop/themes"
	install -m 0755 "$$($(SWIFT) build -c release --scratch-path $(SCRATCH) --show-bin-path)/transfertop" "$(DESTDIR)$(PREFIX)/bin/transfertop"
	install -m 0644 themes/*.toml "$(DESTDIR)$(PREFIX)/share/transfertop/themes/"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/transfertop"
	rm -rf "$(DESTDIR)$(PREFIX)/share/transfertop"

clean:
	rm -rf $(SCRATCH)
