"""keel: build, boot, test and benchmark Keel services.

  keel setup [--tests]          install what building (and testing) needs (Debian, root)
  keel new NAME [-t TEMPLATE]   write a service folder (hello, udp, tcp) that builds at once
  keel build DIR                build the service in DIR into a bootable image
  keel boot IMAGE|DIR [...]     run an image in QEMU (KVM when usable, else TCG)
  keel run IMAGE|DIR -p H:G     boot it reachable on localhost:H (guest port G), no root
  keel test [--install]         build everything and run every test
  keel demo                     set up, build and boot examples/hello
  keel bench [NAME] [--quick]   run every benchmark (or bench/NAME), write bench/results/

Run `keel COMMAND --help` for the options of each command.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(__file__))))

from keelpy.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
