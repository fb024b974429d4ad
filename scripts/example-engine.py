#!/usr/bin/env python3
"""A minimal engine for arbiter's JSON-lines protocol (docs/engine-protocol.md).

It plays any variant, hidden information included, because it only uses what
the host sends: the legal moves with their texts. It prefers moves whose text
marks a capture or a check ('x', '+', '#') and otherwise picks at random.
Run it as a player: arbiter match chess --p1 "engine:python3 scripts/example-engine.py" --p2 random
"""
import json
import random
import sys


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def main():
    rng = random.Random(1)
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            send({"type": "ready", "name": "example-engine"})
        elif kind == "new_game":
            rng.seed(msg.get("player", 0) + 1)
        elif kind == "go":
            moves = msg["legal_moves"]
            forcing = [m for m in moves if any(c in m["text"] for c in "x+#")]
            choice = rng.choice(forcing or moves)
            send({"type": "move", "move": choice["text"], "time_ms": 0})
        elif kind == "quit":
            break
        # "moved" and "game_over" need no answer.


if __name__ == "__main__":
    main()
