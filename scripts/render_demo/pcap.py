"""Reading the demo's packet captures without a pcap library: records,
IPv4 headers, a capture's packets and a TCP stream's data segments."""


def pcap_records(path):
    """(time_s, frame bytes) of each record of a pcap (us or ns timestamps)."""
    import struct
    with open(path, "rb") as f:
        data = f.read()
    for endian in ("<", ">"):
        m = struct.unpack(endian + "I", data[:4])[0]
        if m in (0xa1b2c3d4, 0xa1b23c4d):
            div = 1e6 if m == 0xa1b2c3d4 else 1e9
            break
    else:
        raise ValueError("%s is not a pcap file" % path)
    off = 24
    while off + 16 <= len(data):
        sec, frac, caplen, _ = struct.unpack(endian + "IIII", data[off:off + 16])
        yield sec + frac / div, data[off + 16:off + 16 + caplen]
        off += 16 + caplen


def ipv4(p, proto):
    """Offset of the L4 header of an Ethernet/IPv4 frame carrying PROTO, or None."""
    if len(p) >= 34 and p[12:14] == b"\x08\x00" and p[23] == proto:
        return 14 + (p[14] & 0xf) * 4
    return None


def read_pcap(path):
    """(time_s, udp_dport) of each IPv4 UDP packet of an Ethernet pcap."""
    import struct
    out = []
    for t, p in pcap_records(path):
        l4 = ipv4(p, 17)
        if l4 is not None and len(p) >= l4 + 4:
            out.append((t, struct.unpack(">H", p[l4 + 2:l4 + 4])[0]))
    return out


def read_tcp_data(path):
    """(time_s, relative seq, payload len) of each IPv4 TCP data packet."""
    import struct
    out, base = [], None
    for t, p in pcap_records(path):
        l4 = ipv4(p, 6)
        if l4 is None or len(p) < l4 + 13:
            continue
        iplen = struct.unpack(">H", p[16:18])[0]
        ln = iplen - (l4 - 14) - (p[l4 + 12] >> 4) * 4
        if ln <= 0:
            continue
        seq = struct.unpack(">I", p[l4 + 4:l4 + 8])[0]
        base = seq if base is None else base
        out.append((t, (seq - base) % (1 << 32), ln))
    return out
