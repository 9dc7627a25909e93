/// The golden `--help` text, kept apart from the source so a change to one shows as a diff
/// against the other (the command line is a contract scripts rely on).
enum GoldenHelp {
    static let text = """
    transfertop: a terminal transfer monitor over TransferKit

    usage:
    transfertop [OPTIONS] [URL ...]      each URL becomes a download task in one session
      -i, --input-file FILE              more URLs, one per line ('-' = stdin; '#' comments)
      -o, --output-dir DIR               where finished downloads go (default: current directory)
          --no-clobber                   keep any existing file of the same name; do not download it
          --clobber                      replace an existing file of the same name (atomically)
          --session default|ephemeral    configuration kind of the session (default: default)
          --max-connections-per-host N   (default 6)
          --request-timeout SECONDS      idle timeout (default 60)
          --resource-timeout SECONDS     whole-task timeout (default 7 days)
      -H, --header 'Name: value'         extra request header, repeatable
          --location-trusted             send Authorization/Cookie headers to other hosts a redirect
                                         names too (never from https to http)
          --cacert FILE                  also trust the CA certificate(s) in FILE (PEM)
          --upload FILE                  upload FILE to each URL instead of downloading
          --job FILE                     a job file: several sessions with their configurations and tasks
          --csv FILE                     write per-transaction metrics as CSV when the run ends
          --har FILE                     write the run as HAR 1.2 when it ends
          --force                        let --csv/--har replace an existing file
          --theme NAME|PATH              colour theme (default: default)
          --no-tui                       line mode; automatic when stdout is not a terminal
          --fps N                        monitor frame rate cap (default 10)
      -h, --help                         show this help
    transfertop demo                     offline demonstration on an embedded loopback server
    transfertop clean [DIR] [--yes]      list partial downloads left in DIR by killed runs; --yes deletes

    exit status: 0 when every task completed with a 2xx response, 1 when any failed or was
    cancelled, 2 for usage errors.

    Interrupting keeps work: q in the monitor or Ctrl-C/SIGTERM cancels running downloads with
    resume data (kept under $XDG_STATE_HOME/transfertop/resume); running the same command again
    resumes them. Finished files are never touched again: a rerun skips a file it placed before
    when the server still has the same size and validator ("already complete"); another
    existing file of the same name is kept and the new one saved as 'name (1)'.

    In the monitor press ? for the keys (s suspend, r resume, c cancel, d keep resume data,
    R continue, f finish session, X kill session, n new task, N new session, e export CSV,
    t theme, / filter, q quit). NO_COLOR disables colour.

    """
}
