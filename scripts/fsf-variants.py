#!/usr/bin/env python3
"""Which ini variants an installed Fairy-Stockfish really plays.

For each variant named on the command line (default: every variant of
arbiter's ini plugin, as `arbiter list` shows them), starts the engine,
loads arbiter's variants.ini as its VariantPath, selects the variant and
asks for a move from the start: prints `plays`, `no move` (it answers
`bestmove (none)`), `not its own` (it does not report the variant as
loaded: one of its built-ins, which it keeps), or how it died.

Usage: scripts/fsf-variants.py [--engine /usr/games/fairy-stockfish] [VARIANT...]
"""

import argparse
import pathlib
import subprocess

here = pathlib.Path(__file__).resolve().parent.parent
ap = argparse.ArgumentParser()
ap.add_argument("--engine", default="/usr/games/fairy-stockfish")
ap.add_argument("variants", nargs="*")
args = ap.parse_args()
ini = here / "plugins/fairy/src/variants.ini"
names = args.variants
if not names:
    listed = subprocess.run([str(here / "target/release/arbiter"), "list"], capture_output=True, text=True).stdout
    names = [l.split()[0] for l in listed.splitlines() if "libarbiter_fairy" in l]
for name in names:
    engine = subprocess.Popen([args.engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    script = (f"uci\nsetoption name VariantPath value {ini}\nsetoption name UCI_Variant value {name}\n"
              "isready\nposition startpos\ngo depth 3\n")
    try:
        out, _ = engine.communicate(script, timeout=10)
    except subprocess.TimeoutExpired:
        engine.kill()
        print(name, "hangs")
        continue
    if engine.returncode != 0:
        print(name, f"dies (exit {engine.returncode})")
    elif f"info string variant {name} " not in out:
        print(name, "not its own")
    else:
        print(name, "no move" if "bestmove (none)" in out else "plays")
