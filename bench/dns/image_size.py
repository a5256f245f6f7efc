#!/usr/bin/python3
"""Where the bytes of the DNS image go: examples/dns built with one minimal
zone and a linker map, stripped like a shipped image, and the loaded bytes
(text, rodata, data, unwind tables, the backtrace symbol table) summed by the
archive or object they come from.

    bench/dns/image_size.py              # prints the table (bench_dns.py uses it too)
    bench/dns/image_size.py --secondary  # the image built with the secondary role (decision 0141)
"""
import collections
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.path.join(ROOT, "build", "bench-dns-size")
MINIMAL_ZONE = "$TTL 3600\n@ SOA ns hostmaster 1 7200 3600 1209600 300\n@ NS ns\nns A 192.0.2.1\n"
# Output sections whose contents are in the image file (not .bss, not debug info).
LOADED = (".text", ".rodata", ".data", ".tdata", ".init_array", ".eh_frame", ".eh_frame_hdr",
          ".gcc_except_table", ".keel_symbols", ".note.Xen")
SECTION_LINE = re.compile(r"^ (\.\S+)?\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+)$")


def build(zone_text=MINIMAL_ZONE, secondary=False):
    """The image with one tiny zone (and the secondary role if asked); returns (image, linker map)."""
    zones = os.path.join(BUILD, "zones")
    os.makedirs(zones, exist_ok=True)
    with open(os.path.join(zones, "example.com.zone"), "w") as f:
        f.write(zone_text)
    name = "kvm-secondary" if secondary else "kvm"
    out = os.path.join(BUILD, name)
    link_map = os.path.join(BUILD, f"dns-{name}.map")
    configure = ["cmake", "-S", os.path.join(ROOT, "examples", "dns"), "-B", out, "-G", "Ninja",
                 f"-Dkeel_DIR={ROOT}/cmake", "-DKEEL_PLATFORM=kvm", f"-DKEEL_DNS_ZONES={zones}",
                 f"-DKEEL_DNS_SECONDARY={'ON' if secondary else 'OFF'}",
                 f"-DCMAKE_EXE_LINKER_FLAGS=-Wl,-Map={link_map}"]
    for step in (configure, ["cmake", "--build", out, "-j2"]):
        subprocess.run(step, check=True, capture_output=True, timeout=900)
    return os.path.join(out, "dns"), link_map


def stripped_sizes(image):
    """Bytes of the stripped image, and of the same without the backtrace symbol table."""
    copy, bare = image + ".stripped", image + ".nosymbols"
    shutil.copy(image, copy)
    subprocess.run(["strip", copy], check=True)
    subprocess.run(["objcopy", "--remove-section=.keel_symbols", copy, bare], check=True,
                   capture_output=True)
    return os.path.getsize(copy), os.path.getsize(bare)


def origin_of(path, members=False):
    """A short name for where an input section comes from."""
    name = os.path.basename(path)
    archive = re.match(r"(lib[\w+.-]+\.a)\((.*)\)", name)
    if archive:
        return name if members else archive.group(1)
    if "_objects.dir" in path or name.endswith("_zones.S.o"):
        return f"examples/dns {name}" if members else "the service (examples/dns)"
    if name.endswith(".symbols.S.o"):
        return "backtrace symbol table"
    return name


def attribute(link_map, members=False):
    """{origin: bytes} of the loaded output sections, from a GNU ld map."""
    sizes = collections.Counter()
    output = None
    pending = None  # a long input-section name alone on its line
    with open(link_map, errors="replace") as f:
        for line in f:
            if line.startswith("Linker script and memory map"):
                break
        for line in f:
            top = re.match(r"^(\.\S+)\s", line)
            if top:
                output = top.group(1)
                continue
            if output not in LOADED:
                continue
            if re.match(r"^ \.\S+$", line.rstrip()):
                pending = line.strip()
                continue
            m = SECTION_LINE.match(line.rstrip())
            if m and (m.group(1) or pending):
                size = int(m.group(3), 16)
                if size:
                    sizes[origin_of(m.group(4), members)] += size
            pending = None
    return sizes


def report(image, link_map, top_members=12):
    stripped, bare = stripped_sizes(image)
    lines = [f"Stripped image with one minimal zone: **{stripped / 1024:.0f} KiB**; without the backtrace "
             f"symbol table (`objcopy --remove-section=.keel_symbols`): {bare / 1024:.0f} KiB.", "",
             "| from | KiB | share |", "| --- | --- | --- |"]
    sizes = attribute(link_map)
    total = sum(sizes.values())
    for origin, size in sizes.most_common():
        if size * 200 < total:
            continue
        lines.append(f"| {origin} | {size / 1024:.1f} | {100 * size / total:.0f}% |")
    rest = sum(s for s in sizes.values() if s * 200 < total)
    lines.append(f"| everything under 0.5% | {rest / 1024:.1f} | {100 * rest / total:.0f}% |")
    lines.append(f"| loaded bytes (sections) | {total / 1024:.1f} | |")
    lines += ["", f"The {top_members} largest objects (template code lands in the first object that uses it):",
              "", "| object | KiB |", "| --- | --- |"]
    for origin, size in attribute(link_map, members=True).most_common(top_members):
        lines.append(f"| {origin} | {size / 1024:.1f} |")
    return lines


if __name__ == "__main__":
    image, link_map = build(secondary="--secondary" in sys.argv[1:])
    print("\n".join(report(image, link_map)))
    sys.exit(0)
