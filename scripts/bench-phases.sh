# scripts/bench-phases.sh: the cliphases case of scripts/bench (sourced by bench-cli.sh).
# Where time goes, phase by phase, transfertop beside the curl CLI in the same run.
# BENCH_PHASE_RUNS (default 15) alternating rounds; each round is one fresh process per client:
#   tt      transfertop --no-tui --csv, two URLs on two loopback addresses (127.0.0.1 and
#           127.0.0.2: two connections, no TLS session to resume), so the table shows the
#           first and the second connection of a session
#   curl    curl --cacert BUNDLE, where BUNDLE is the system bundle plus the test certificate:
#           what a user who trusts one extra CA runs; it parses the bundle on every run
#   curlca  curl --cacert CERT (the test certificate only): the handshake without the bundle
# over HTTPS (HTTP/2 by ALPN, as each client does by default), then the same over HTTP.
# Medians in ms; DNS, connect (TCP only), TLS and TTFB (curl's time_starttransfer; ours from
# the connection slot) as docs/metrics.md defines them.
PHASE_RUNS=${BENCH_PHASE_RUNS:-15}
PHASES_RESULTS="$WORK/phases.txt"
: > "$PHASES_RESULTS"
cat /etc/ssl/certs/ca-certificates.crt "$CERT" > "$WORK/bundle.pem"

# "scheme client which dns connect tls ttfb" lines to $PHASES_RESULTS.
measure_phases() {
    local scheme=$1 client=$2 port=$PORT
    [ "$scheme" = https ] && port=$TLS_PORT
    local u1="$scheme://127.0.0.1:$port/small.bin" u2="$scheme://127.0.0.2:$port/small.bin"
    case $client in
    tt)
        local d="$WORK/phases-out" csv="$WORK/phases.csv"
        rm -rf "$d" "$csv" "$WORK/phases-state"; mkdir -p "$d"
        XDG_STATE_HOME="$WORK/phases-state" "$TT" --no-tui --cacert "$CERT" -o "$d" --csv "$csv" "$u1" "$u2" > /dev/null 2>&1 || { log "cliphases: transfertop failed"; return; }
        # Columns by name (docs/csv.md); the row whose fetch started first is the first connection.
        python3 - "$csv" "$scheme" >> "$PHASES_RESULTS" <<'PY'
import csv, sys
rows = sorted(csv.DictReader(open(sys.argv[1])), key=lambda r: r["fetch_start"])
for which, r in zip(("first", "second"), rows):
    print(sys.argv[2], "tt", which, *(r[c] or "0" for c in ("dns_ms", "connect_ms", "tls_ms", "ttfb_ms")))
PY
        ;;
    curl | curlca)
        local ca="$WORK/bundle.pem"; [ "$client" = curlca ] && ca=$CERT
        curl -s -o /dev/null --cacert "$ca" \
            -w '%{time_namelookup} %{time_connect} %{time_appconnect} %{time_starttransfer}\n' "$u1" |
            awk -v s="$scheme" -v k="$client" '{ tls = ($3 > 0) ? $3 - $2 : 0
                printf "%s %s first %.3f %.3f %.3f %.3f\n", s, k, 1000 * $1, 1000 * ($2 - $1), 1000 * tls, 1000 * $4 }' >> "$PHASES_RESULTS"
        ;;
    esac
}

log "cliphases: $PHASE_RUNS rounds"
for scheme in https http; do
    for run in $(seq "$PHASE_RUNS"); do
        for client in tt curl curlca; do measure_phases "$scheme" "$client"; done
    done
done

# Appends the phase table (markdown) to the file named by $1.
phases_table() {
    {
        echo
        echo "| phases, median of $PHASE_RUNS fresh runs (ms) | DNS | connect | TLS | TTFB |"
        echo "|---|---:|---:|---:|---:|"
        for scheme in https http; do
            for row in "tt first:transfertop, 1st connection" "tt second:transfertop, 2nd connection (same run)" \
                       "curl first:curl --cacert system bundle + CA" "curlca first:curl --cacert CA only"; do
                local key=${row%%:*} name=${row#*:} cells=""
                [ "$scheme" = http ] && [ "$key" = "curlca first" ] && continue  # no CA on http
                for col in 4 5 6 7; do
                    cells="$cells | $(awk -v s="$scheme" -v k="${key% *}" -v w="${key#* }" -v c="$col" \
                        '$1 == s && $2 == k && $3 == w { print $c }' "$PHASES_RESULTS" | cli_median | xargs printf '%.3f')"
                done
                echo "| $scheme: $name$cells |"
            done
        done
    } >> "$1"
}
