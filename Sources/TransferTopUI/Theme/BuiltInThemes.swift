/// The default theme's text, embedded so the monitor has colours with no files installed.
///
/// It must equal `themes/default.toml` byte for byte (a test checks); after editing the
/// file, paste it between the quotes again (the blank line keeps the file's final newline).
enum BuiltInThemes {
    static let defaultText = """
# transfertop default theme (dark). This file is also the list of every role.
#
# Format (TOML 1.0), one role per line:
#   role = "colour [on colour] [bold] [dim] [italic] [underline] [reverse]"
#   role = { fg = "colour", bg = "colour", bold = true }      (the same as an inline table)
#   colour: #rrggbb | 0-255 (xterm-256 index) | black red green yellow blue magenta cyan white
#           | bright-black ... bright-white | default (the terminal's own colour)
# A role left out of a theme keeps its colour from this default theme.
# See docs/themes.md.

# General text
text = "#f8f8f2"                      # ordinary text: URLs, numbers, header values
dim = "#6272a4"                       # secondary text: units, placeholders, "--"
header = "#f8f8f2 on #44475a bold"    # the top line with the totals
border = "#6272a4"                    # pane rules and separators
title = "#8be9fd bold"                # pane titles and table column headings
selection = "#282a36 on #bd93f9 bold" # the selected row
statusLine = "#f1fa8c"                # the status message line ("task 1.2 is already running")
keyHint = "#8be9fd bold"              # keys in the footer and the help screen
error = "#ff5555 bold"                # errors: failed tasks' messages, theme errors
logText = "#bfbfbf"                   # event log lines

# Task states; failed = completed with an error or an HTTP 4xx/5xx
stateQueued = "#6272a4"               # running, but waiting for a connection (per-host limit)
stateRunning = "#50fa7b bold"
stateSuspended = "#f1fa8c"
stateCanceling = "#ffb86c"            # canceling: cancel (with resume data) in progress
stateCompleted = "#8be9fd"
stateFailed = "#ff5555 bold"
stateCancelled = "#ff79c6"            # completed by cancellation

# Progress bars
barFill = "#50fa7b"
barEmpty = "#44475a"
barIndeterminate = "#bd93f9"          # the moving block when the size is unknown
barError = "#ff5555"                  # the bar of a task that completed with an error or HTTP 4xx/5xx

# Waterfall phases
phaseQueued = "#6272a4"               # waiting for a free connection
phaseDNS = "#8be9fd"
phaseConnect = "#ffb86c"
phaseTLS = "#ff79c6"
phaseRequest = "#f1fa8c"
phaseWait = "#bfbfbf"                 # time to first byte
phaseReceive = "#50fa7b"
phaseMark = "#f8f8f2 bold"            # "reused" and the phase a live hop is in

# Details
secret = "#6272a4 italic"             # masked header values (••••)
httpSuccess = "#50fa7b"               # 2xx status
httpRedirect = "#8be9fd"              # 3xx status
httpError = "#ff5555"                 # 4xx and 5xx status

"""
}
