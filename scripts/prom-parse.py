#!/usr/bin/env python3
"""Reads a Prometheus text exposition on stdin with prometheus_client's own parser (not ours)
and prints its samples as JSON: [{"name": ..., "labels": {...}, "value": ...}, ...].
Exit 1 with the parser's message when the text is not valid exposition format."""
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

try:
    samples = [
        {"name": s.name, "labels": s.labels, "value": s.value, "type": family.type}
        for family in text_string_to_metric_families(sys.stdin.read())
        for s in family.samples
    ]
except Exception as e:  # the parser raises ValueError and friends on bad input
    print(f"prom-parse: {e}", file=sys.stderr)
    sys.exit(1)
json.dump(samples, sys.stdout)
