#!/usr/bin/env python3
"""An OTLP/HTTP trace receiver for the tests, on the official protobuf definitions
(pip package opentelemetry-proto).

Usage: otlp_receiver.py OUT.jsonl

Listens on 127.0.0.1 on a port the kernel picks and prints "PORT n" once it listens. Accepts
POST /v1/traces with a protobuf ExportTraceServiceRequest (gzip or not), writes one JSON line
per request ({"type": "request", ...}, with the body as text for secret searches) and one per
span ({"type": "span", ...}) to OUT.jsonl, flushed before it answers, so what a client was told
was received is in the file. Anything else is answered 404 or 400. Stops when its standard
input ends.
"""
import gzip
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from announced import announce_and_serve

OUT = None
LOCK = threading.Lock()


def value(v):
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return [value(x) for x in v.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: value(kv.value) for kv in v.kvlist_value.values}
    if kind == "bytes_value":
        return v.bytes_value.hex()
    return getattr(v, kind) if kind else None


def attributes(kvs):
    return {kv.key: value(kv.value) for kv in kvs}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path != "/v1/traces":
            self.send_error(404)
            return
        encoding = self.headers.get("Content-Encoding", "")
        if encoding == "gzip":
            body = gzip.decompress(body)
        request = trace_service_pb2.ExportTraceServiceRequest()
        try:
            request.ParseFromString(body)
        except Exception as error:  # a body that is not the message is the client's bug
            self.send_error(400, str(error))
            return
        lines = [{"type": "request", "path": self.path, "content_type": self.headers.get("Content-Type", ""),
                  "content_encoding": encoding, "headers": dict(self.headers.items()),
                  "body_text": body.decode("latin-1")}]
        for rs in request.resource_spans:
            resource = attributes(rs.resource.attributes)
            for ss in rs.scope_spans:
                for s in ss.spans:
                    lines.append({
                        "type": "span", "resource": resource, "scope": ss.scope.name,
                        "trace_id": s.trace_id.hex(), "span_id": s.span_id.hex(),
                        "parent_span_id": s.parent_span_id.hex(), "name": s.name, "kind": int(s.kind),
                        "start_time_unix_nano": s.start_time_unix_nano, "end_time_unix_nano": s.end_time_unix_nano,
                        "attributes": attributes(s.attributes),
                        "events": [{"name": e.name, "time_unix_nano": e.time_unix_nano} for e in s.events],
                        "status": {"code": int(s.status.code), "message": s.status.message},
                    })
        with LOCK:
            for line in lines:
                OUT.write(json.dumps(line) + "\n")
            OUT.flush()
        answer = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


def main():
    global OUT
    OUT = open(sys.argv[1], "a", encoding="utf-8")
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    announce_and_serve(server.server_address[1], server.serve_forever)


if __name__ == "__main__":
    main()
