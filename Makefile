# transfertop: build, test, install.
#   make                      debug build
#   make test                 all tests
#   make install PREFIX=DIR   scripts/install: binary, man page, completions, themes under DIR
PREFIX ?= /usr/local
SCRATCH ?= .build
SWIFT ?= swift
DESTDIR ?=

.PHONY: all build release test test-cli install uninstall clean

all: build

build:
	$(SWIFT) build --scratch-path $(SCRATCH) --product transfertop

release:
	SWIFT="$(SWIFT)" scripts/release-build --scratch-path $(SCRATCH) --product transfertop

test:
	$(SWIFT) test --scratch-path $(SCRATCH)

# The CLI tests drive the monitor in tmux; install it if missing (Debian/Ubuntu).
test-cli:
	@command -v tmux >/dev/null || (apt-get install -y tmux || sudo apt-get install -y tmux)
	$(SWIFT) test --scratch-path $(SCRATCH) --filter TransferTopCLITests

# One list of what goes where: scripts/install.
install:
	DESTDIR="$(DESTDIR)" SCRATCH="$(SCRATCH)" SWIFT="$(SWIFT)" scripts/install "$(PREFIX)"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/transfertop" "$(DESTDIR)$(PREFIX)/share/man/man1/transfertop.1"
	rm -f "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/transfertop"
	rm -f "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_transfertop"
	rm -f "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/transfertop.fish"
	rm -rf "$(DESTDIR)$(PREFIX)/share/transfertop"

clean:
	rm -rf $(SCRATCH)
