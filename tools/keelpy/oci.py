"""`keel package --format oci`: the image as an OCI image layout (image-spec v1.1, "OCI Image
Layout"): a directory of `oci-layout`, `index.json` and `blobs/sha256/`, which skopeo copies to a
registry and from which KubeVirt's kernelBoot container takes the image (decision 0117).

One layer holds the image at disk.IMAGE_PATH, the path the disk format uses too. The service's
command line, memory and machine go into the manifest's annotations, and as labels into the
config, where `skopeo inspect` and `podman inspect` show them.

Reproducible: the same image and options give the same bytes, hence the same digest. The
layer's tar has fixed owners, modes and mtimes in a fixed order, and its gzip stream no name
and mtime 0; the JSON is written with sorted keys and no `created` time."""
import gzip
import hashlib
import io
import json
import os
import shutil
import tarfile

from . import disk
from .paths import KeelError

LAYOUT_VERSION = "1.0.0"  # image-spec's imageLayoutVersion, unchanged in v1.1
TAG = "latest"            # index.json's org.opencontainers.image.ref.name
MEDIA = {"index": "application/vnd.oci.image.index.v1+json",
         "manifest": "application/vnd.oci.image.manifest.v1+json",
         "config": "application/vnd.oci.image.config.v1+json",
         "layer": "application/vnd.oci.image.layer.v1.tar+gzip"}
# KubeVirt's virt-launcher runs QEMU as uid/gid 107 ("qemu"); its containerDisk images give
# their files to it, and so does this layer. Read-only: nothing writes the image.
OWNER = 107
FILE_MODE, DIR_MODE = 0o444, 0o555
# The kubelet pulls only images whose platform is its node's: a Keel image runs on x86-64
# hosts under Linux (KVM), though it is no Linux program itself.
PLATFORM = {"architecture": "amd64", "os": "linux"}


def layer_tar(image):
    """The uncompressed layer: every directory of IMAGE_PATH, then the image."""
    with open(image, "rb") as f:
        return tar_of([(disk.IMAGE_PATH, f.read(), FILE_MODE)], OWNER)


def tar_of(files, owner):
    """A reproducible tar of `files` ((absolute path, bytes, mode)), each after its
    directories, all owned by uid and gid `owner`."""
    out, made = io.BytesIO(), set()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path, data, mode in files:
            parts = path.strip("/").split("/")
            for depth in range(1, len(parts)):
                directory = "/".join(parts[:depth])
                if directory not in made:
                    made.add(directory)
                    tar.addfile(entry(directory, tarfile.DIRTYPE, DIR_MODE, owner))
            info = entry("/".join(parts), tarfile.REGTYPE, mode, owner)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def entry(name, kind, mode, owner):
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.mtime = kind, mode, 0
    info.uid = info.gid = owner
    info.uname = info.gname = ""
    return info


def gzipped(data):
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0, compresslevel=9) as f:
        f.write(data)
    return out.getvalue()


def canonical(document):
    return json.dumps(document, sort_keys=True, separators=(",", ":")).encode()


def annotations(name, append, memory_mib, machine, cpus):
    """Standard keys where image-spec's annotations fit, dev.keel.* for the rest (all strings,
    as image-spec requires)."""
    return {"org.opencontainers.image.title": name,
            "org.opencontainers.image.description":
                f"Keel unikernel image at {disk.IMAGE_PATH}: boot it as a kernel (PVH ELF, "
                "or Multiboot2), not as a container",
            "dev.keel.image.path": disk.IMAGE_PATH,
            "dev.keel.cmdline": append,
            "dev.keel.memory": f"{memory_mib}Mi",
            "dev.keel.machine": machine,
            "dev.keel.cpus": str(cpus)}


def write(image, output, name, append, memory_mib, machine, cpus):
    notes = annotations(name, append, memory_mib, machine, cpus)
    return write_layout(output, layer_tar(image), {"Labels": notes}, notes,
                        "keel package --format oci", f"the Keel image at {disk.IMAGE_PATH}")


def write_layout(output, tar, container_config, notes, created_by, comment):
    """An image layout of one layer (`tar`, uncompressed) whose config's "config" is
    `container_config`, with `notes` as the manifest's annotations."""
    layer = gzipped(tar)
    config = canonical({**PLATFORM, "config": container_config,
                        # No "created": a time would change the digest at every run.
                        "history": [{"created_by": created_by, "comment": comment}],
                        "rootfs": {"type": "layers",
                                   "diff_ids": ["sha256:" + hashlib.sha256(tar).hexdigest()]}})
    manifest = canonical({"schemaVersion": 2, "mediaType": MEDIA["manifest"],
                          "config": descriptor("config", config),
                          "layers": [descriptor("layer", layer)], "annotations": notes})
    index = canonical({"schemaVersion": 2, "mediaType": MEDIA["index"],
                       "manifests": [{**descriptor("manifest", manifest), "platform": PLATFORM,
                                      "annotations": {"org.opencontainers.image.ref.name": TAG}}]})
    prepare(output)
    for blob in (layer, config, manifest):
        digest = hashlib.sha256(blob).hexdigest()
        with open(os.path.join(output, "blobs", "sha256", digest), "wb") as f:
            f.write(blob)
    with open(os.path.join(output, "oci-layout"), "wb") as f:
        f.write(canonical({"imageLayoutVersion": LAYOUT_VERSION}))
    with open(os.path.join(output, "index.json"), "wb") as f:
        f.write(index)
    return output


def descriptor(kind, blob):
    return {"mediaType": MEDIA[kind], "digest": "sha256:" + hashlib.sha256(blob).hexdigest(),
            "size": len(blob)}


def prepare(output):
    """An empty directory for the layout. An earlier layout there is replaced (its old blobs
    would otherwise stay); anything else is left alone."""
    if os.path.lexists(output):
        is_layout = not os.path.islink(output) and os.path.isdir(output) and os.path.exists(
            os.path.join(output, "oci-layout"))
        if is_layout:
            shutil.rmtree(output)
        elif not os.path.isdir(output) or os.listdir(output):
            raise KeelError(f"{output} exists and is not an OCI layout: give another -o")
    os.makedirs(os.path.join(output, "blobs", "sha256"), exist_ok=True)
