#!/usr/bin/env python3
"""Validate a HAR file against a HAR 1.2 JSON schema, plus the rules a schema cannot say.

usage: har-validate.py SCHEMA.json FILE.har
exit:  0 valid, 1 invalid (reasons on stderr), 2 usage error or missing jsonschema.

Beyond the schema (scripts/har-1.2.schema.json):
  * entry.time == sum of the non-negative timings except ssl (ssl is inside connect), ±0.002 ms;
  * connect >= ssl when both are present (connect includes ssl);
  * -1 is the only negative value allowed in timings.
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("har-validate: python3 module 'jsonschema' is not installed", file=sys.stderr)
    sys.exit(2)


def extra_errors(har):
    errors = []
    for i, e in enumerate(har.get("log", {}).get("entries", [])):
        t = e.get("timings", {})
        for k, v in t.items():
            if isinstance(v, (int, float)) and v < 0 and v != -1:
                errors.append(f"entries[{i}].timings.{k} = {v}: only -1 may be negative")
        parts = [t.get(k, -1) for k in ("blocked", "dns", "connect", "send", "wait", "receive")]
        total = sum(v for v in parts if isinstance(v, (int, float)) and v >= 0)
        if abs(total - e.get("time", -1)) > 0.002:
            errors.append(f"entries[{i}].time = {e.get('time')} but its timings add up to {total:.3f}")
        ssl, connect = t.get("ssl", -1), t.get("connect", -1)
        if ssl >= 0 and connect < ssl:
            errors.append(f"entries[{i}].timings.connect = {connect} does not include ssl = {ssl}")
    return errors


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    try:
        with open(argv[2], encoding="utf-8") as f:
            har = json.load(f)
    except (OSError, ValueError) as exc:
        print(f"har-validate: {argv[2]}: not JSON: {exc}", file=sys.stderr)
        return 1
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = [f"{'/'.join(map(str, err.absolute_path)) or '(root)'}: {err.message}"
              for err in sorted(validator.iter_errors(har), key=lambda e: list(map(str, e.absolute_path)))]
    errors += extra_errors(har)
    for message in errors:
        print(f"har-validate: {message}", file=sys.stderr)
    if not errors:
        print(f"har-validate: {argv[2]}: valid HAR 1.2 ({len(har['log']['entries'])} entries)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
