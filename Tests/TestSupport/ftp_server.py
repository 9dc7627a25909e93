"""A pyftpdlib FTP server for the tests, on 127.0.0.1 only (TestSupport/FTPTestServer.swift).

    python3 ftp_server.py ROOT USER PASSWORD [CERT KEY]

With CERT and KEY it speaks implicit FTPS (ftps://, what libcurl means by that scheme): TLS
from the first byte on the control connection, and on every data connection (PROT P is
required). pyftpdlib's TLS handler (it needs pyOpenSSL) only knows AUTH TLS, so the handshake
is started as the connection is accepted.

Listens on a port the kernel picks, prints "PORT <n>" once it accepts connections (the test
waits for that line, never for time), and exits when its standard input closes (the test's
teardown, or the test process dying). Passive mode only, as libcurl uses it.

A file whose name starts with "held-" is a server-side gate: the first time it is fetched from
offset 0, the server sends its first MiB and then holds the data connection, sending nothing
more until the client goes. So a test stops such a download midway with certainty however slow
the machine. Any later fetch (with REST, a resumed download, or again from zero, a restart)
goes at full speed. Plain ftp:// only: the ftps handler below does not hold.
"""
import logging
import os
import sys

from pyftpdlib.authorizers import DummyAuthorizer
from pyftpdlib.handlers import FTPHandler, ThrottledDTPHandler
from pyftpdlib.servers import FTPServer
from announced import announce_and_serve

HELD_AFTER = 1024 * 1024


class GatedDTP(ThrottledDTPHandler):
    # The throttled handler with no limits: it never uses sendfile, so every byte goes through
    # send() below.
    read_limit = 0
    write_limit = 0
    timeout = 0  # a held transfer makes no progress for as long as the test wants: never 421

    def send(self, data):
        # Decided per transfer by the control channel (set in ftp_RETR below).
        if getattr(self.cmd_channel, "held_transfer", False):
            room = HELD_AFTER - self.tot_bytes_sent
            if room <= 0:
                self.del_channel()  # no more writes: the bytes wait until the client closes
                return 0
            data = data[:room]
        return super().send(data)


class Handler(FTPHandler):
    dtp_handler = GatedDTP
    auth_failed_timeout = 0  # answer a wrong password at once (default: 3 s later)
    held_files = set()  # "held-" files fetched from offset 0 once already

    def ftp_RETR(self, file):
        held = self._restart_position == 0 and os.path.basename(file).startswith("held-") and file not in Handler.held_files
        if held:
            Handler.held_files.add(file)
        self.held_transfer = held
        return super().ftp_RETR(file)


def implicit_tls_handler(cert, key):
    from pyftpdlib.handlers import TLS_FTPHandler

    class Implicit(TLS_FTPHandler):
        dtp_handler = TLS_FTPHandler.dtp_handler
        auth_failed_timeout = 0
        tls_data_required = True

        def handle(self):
            self.secure_connection(self.ssl_context)  # implicit: TLS before the banner
            super().handle()

    Implicit.certfile = cert
    Implicit.keyfile = key
    return Implicit


def main():
    root, user, password = sys.argv[1:4]
    global Handler
    if len(sys.argv) >= 6:
        Handler = implicit_tls_handler(sys.argv[4], sys.argv[5])
    logging.basicConfig(level=logging.ERROR)
    authorizer = DummyAuthorizer()
    authorizer.add_user(user, password, root, perm="elradfmw")
    Handler.authorizer = authorizer
    Handler.banner = "transfertop test server ready"
    server = FTPServer(("127.0.0.1", 0), Handler)
    announce_and_serve(server.socket.getsockname()[1], server.serve_forever)


if __name__ == "__main__":
    main()
