#!/usr/bin/env python3
"""Legal moves of draughts positions according to py-draughts, an independent
referee. Reads one JSON object per line ({"variant": ..., "fen": ...}) and
prints, per line, the sorted list of moves as "FROM-TO:CAPTURED,..." with
1-based squares (duplicates removed)."""
import json
import sys

import draughts

BOARDS = {
    "international": draughts.StandardBoard,
    "brazilian": draughts.BrazilianBoard,
    "russian": draughts.RussianBoard,
}

for line in sys.stdin:
    job = json.loads(line)
    board = BOARDS[job["variant"]].from_fen(job["fen"])
    moves = set()
    for m in board.legal_moves:
        path = m.square_list
        caps = ",".join(str(c + 1) for c in sorted(m.captured_list))
        moves.add(f"{path[0] + 1}-{path[-1] + 1}:{caps}")
    print(json.dumps(sorted(moves)))
