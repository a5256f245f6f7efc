"""Recognizes a Keel image: an x86-64 ELF carrying a PVH entry note."""
import struct

from .paths import KeelError

PT_NOTE = 4
XEN_ELFNOTE_PHYS32_ENTRY = 18
SHT_SYMTAB = 2
ELF64_SYMBOL_SIZE = 24
MIN_RAM_SYMBOL = b"__keel_min_ram_mib"  # src/arch/x86_64/linker.ld


def check_image(path):
    """Raises KeelError unless `path` is a bootable Keel (PVH) image."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise KeelError(f"image not found: {path}") from None
    except IsADirectoryError:
        raise KeelError(f"{path} is a directory, not an image") from None
    if data[:4] != b"\x7fELF":
        raise KeelError(f"{path} is not an ELF file, so not a Keel image")
    if data[4] != 2 or struct.unpack_from("<H", data, 18)[0] != 62:
        raise KeelError(f"{path} is not an x86-64 ELF64 file, so not a Keel image")
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    for i in range(phnum):
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from(
            "<IIQQQQ", data, phoff + i * phentsize)
        if p_type == PT_NOTE and _has_pvh_note(data[p_offset:p_offset + p_filesz]):
            return
    raise KeelError(f"{path} has no PVH entry note: not a Keel image "
                    "(was it built with `keel build` for the kvm platform?)")


def _has_pvh_note(notes):
    pos = 0
    while pos + 12 <= len(notes):
        namesz, descsz, note_type = struct.unpack_from("<III", notes, pos)
        name = notes[pos + 12:pos + 12 + namesz].rstrip(b"\0")
        if name == b"Xen" and note_type == XEN_ELFNOTE_PHYS32_ENTRY:
            return True
        pos += 12 + (namesz + 3) // 4 * 4 + (descsz + 3) // 4 * 4
    return False


def min_memory_mib(path):
    """The least RAM in MiB the image starts in (linker.ld's __keel_min_ram_mib, which boot.S
    checks), or None when the image has no symbol table (stripped) or no such symbol."""
    with open(path, "rb") as f:
        data = f.read()
    shoff, = struct.unpack_from("<Q", data, 40)
    shentsize, shnum = struct.unpack_from("<HH", data, 58)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    for _, sh_type, _, _, offset, size, link, _, _, _ in sections:
        if sh_type != SHT_SYMTAB:
            continue
        strings = sections[link][4]
        for pos in range(offset, offset + size, ELF64_SYMBOL_SIZE):
            name_at, = struct.unpack_from("<I", data, pos)
            end = data.index(b"\0", strings + name_at)
            if data[strings + name_at:end] == MIN_RAM_SYMBOL:
                return struct.unpack_from("<Q", data, pos + 8)[0]
    return None
