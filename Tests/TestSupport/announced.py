"""The Python side of TestSupport's AnnouncedServer: print `PORT <n>` once the server
accepts connections (the test waits for that line), and exit when standard input closes
(the test's teardown, or the test process dying)."""

import os
import sys
import threading


def announce_and_serve(port, serve_forever):
    print("PORT %d" % port, flush=True)

    def watch_stdin():
        sys.stdin.read()
        os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    serve_forever()
