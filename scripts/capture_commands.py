#!/usr/bin/env python3
"""Records the command documents a client sends to a MongoDB endpoint.

A TCP proxy: listens on LISTEN_PORT, forwards every byte to UPSTREAM (host:port) and back, and
writes each OP_MSG the client sends (its body, with document sequences folded in as arrays) to
OUT as one line of canonical Extended JSON. Used to capture what mongosh sends for
`sh.status()` (benches/serve_status.rs replays it).

Usage: scripts/capture_commands.py LISTEN_PORT UPSTREAM OUT
"""
import socket
import struct
import sys
import threading

import bson
from bson import json_util

OP_MSG = 2013


def read_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def op_msg_body(payload):
    """The command document of an OP_MSG payload (after the 16-byte header)."""
    flags = struct.unpack_from("<I", payload, 0)[0]
    end = len(payload) - (4 if flags & 1 else 0)
    pos = 4
    body = None
    sequences = {}
    while pos < end:
        kind = payload[pos]
        pos += 1
        if kind == 0:
            size = struct.unpack_from("<i", payload, pos)[0]
            body = bson.decode(payload[pos:pos + size])
            pos += size
        else:
            size = struct.unpack_from("<i", payload, pos)[0]
            section_end = pos + size
            name_end = payload.index(b"\0", pos + 4)
            name = payload[pos + 4:name_end].decode()
            p = name_end + 1
            docs = []
            while p < section_end:
                dsize = struct.unpack_from("<i", payload, p)[0]
                docs.append(bson.decode(payload[p:p + dsize]))
                p += dsize
            sequences[name] = docs
            pos = section_end
    if body is not None:
        body.update(sequences)
    return body


def pump(src, dst, out, lock, record):
    while True:
        header = read_exact(src, 16)
        if header is None:
            break
        length, _req, _resp, opcode = struct.unpack("<iiii", header)
        payload = read_exact(src, length - 16)
        if payload is None:
            break
        if record and opcode == OP_MSG:
            body = op_msg_body(payload)
            with lock:
                out.write(json_util.dumps(body, json_options=json_util.CANONICAL_JSON_OPTIONS) + "\n")
                out.flush()
        dst.sendall(header + payload)
    try:
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def main():
    port, upstream, path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    host, up_port = upstream.rsplit(":", 1)
    lock = threading.Lock()
    out = open(path, "w")
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen()
    while True:
        client, _ = listener.accept()
        server = socket.create_connection((host, int(up_port)))
        threading.Thread(target=pump, args=(client, server, out, lock, True), daemon=True).start()
        threading.Thread(target=pump, args=(server, client, out, lock, False), daemon=True).start()


if __name__ == "__main__":
    main()
