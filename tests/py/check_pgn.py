#!/usr/bin/env python3
"""Reads a PGN file with python-chess (an independent referee) and prints one
JSON line per game: its result, termination tag, ply count, whether every move
was legal, the final FEN, and the clock comments python-chess understood."""
import json
import sys

import chess
import chess.pgn

with open(sys.argv[1]) as f:
    while True:
        game = chess.pgn.read_game(f)
        if game is None:
            break
        board = game.board()
        plies, clocks, legal = 0, 0, not game.errors
        for node in game.mainline():
            if node.move not in board.legal_moves:
                legal = False
                break
            board.push(node.move)
            plies += 1
            clocks += node.clock() is not None
        print(json.dumps({
            "white": game.headers.get("White"),
            "result": game.headers.get("Result"),
            "termination": game.headers.get("Termination"),
            "plies": plies,
            "plycount": int(game.headers.get("PlyCount", -1)),
            "legal": legal,
            "errors": [str(e) for e in game.errors],
            "clocks": clocks,
            "fen": board.fen(),
            "outcome": board.outcome(claim_draw=True).result() if board.outcome(claim_draw=True) else None,
        }))
