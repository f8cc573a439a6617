"""The bytes of a transaction-log entry, written and read back.

As ``TxnLogBufferedWriter`` writes them, and as ``MLTransactionLogImpl.deserializeEntry`` reads them
on replay (apache/pulsar, d2beb06e21).

A batched entry is the prefix ``0E 01 00 01`` (magic 0x0E01 and version 1, two big-endian shorts)
followed by one protobuf message whose field 1 repeats the records (``BatchedTransactionMetadataEntry``);
an unbatched entry is the record alone. A record is a protobuf message, so its first byte is a field
tag and never 0x0E (field 1, wire type 6, does not exist): the prefix cannot be mistaken.
"""

from __future__ import annotations

import struct

MAGIC, VERSION = 0x0E01, 1
PREFIX = struct.pack(">hh", MAGIC, VERSION)


class BadEntry(ValueError):  # noqa: N818 - "bad entry" reads as the finding it is
    """An entry that is neither a record nor a well-formed batch."""


def record_payload(record: int, size: int) -> bytes:
    """A stand-in for a serialized record of ``size`` bytes: field 1 (varint) first, as a real one."""
    return (b"\x08" + bytes([record % 128]) + b"Z" * size)[:size] if size > 1 else b"\x08"[:size]


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def encode(payloads: list[bytes], *, batched: bool) -> bytes:
    """The entry for these records."""
    if not batched:
        (payload,) = payloads
        return payload
    return PREFIX + b"".join(b"\x0a" + _varint(len(p)) + p for p in payloads)


def decode(data: bytes) -> tuple[bool, list[bytes]]:
    """(batched, the records' bytes) of an entry, as replay reads it."""
    if data[:2] != PREFIX[:2]:
        return False, [data]
    out, at = [], 4  # the version short is skipped, not checked (as in replay)
    while at < len(data):
        if data[at] != 0x0A:
            raise BadEntry(f"byte {at}: tag {data[at]:#x}, want field 1 of the batch")
        at += 1
        size = shift = 0
        while True:
            if at >= len(data):
                raise BadEntry("a record's length runs past the end")
            byte = data[at]
            at += 1
            size |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                break
        if at + size > len(data):
            raise BadEntry("a record runs past the end")
        out.append(data[at : at + size])
        at += size
    return True, out
