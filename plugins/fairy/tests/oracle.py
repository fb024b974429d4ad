"""Perft of ini variants by Fairy-Stockfish's rules (pyffish), as an
independent oracle for arbiter's ini plugin: for each variant (or
`variant@FEN`), its start position and positions of seeded random games, each with the number of
legal move sequences of 1..DEPTH plies (none after an immediate end).
Prints one JSON object a line: {variant, fen, written, counts, moves,
children} (the FEN as Fairy-Stockfish writes it back, and after each legal
move)."""
import json, random, sys

import pyffish as sf

variants, depth, games, plies = sys.argv[1].split(","), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])


def ended(v, fen, moves):
    return sf.is_immediate_game_end(v, fen, moves)[0] or not sf.legal_moves(v, fen, moves)


def perft(v, fen, moves, d):
    if d == 0:
        return 1
    if sf.is_immediate_game_end(v, fen, moves)[0]:
        return 0
    legal = sf.legal_moves(v, fen, moves)
    if d == 1:
        return len(legal)
    return sum(perft(v, fen, moves + [m], d - 1) for m in legal)


for spec in variants:
    # `variant@FEN` starts the random games from FEN instead of the start position.
    v, _, given = spec.partition("@")
    start = given or sf.start_fen(v)
    rng = random.Random(7)
    positions = [start]
    for g in range(games):
        moves = []
        for _ in range(rng.randrange(plies // 2, plies + 1)):
            if ended(v, start, moves):
                break
            moves.append(rng.choice(sf.legal_moves(v, start, moves)))
        positions.append(sf.get_fen(v, start, moves))
    for fen in positions:
        counts = [perft(v, fen, [], d) for d in range(1, depth + 1)]
        legal = sorted(sf.legal_moves(v, fen, []))
        children = {m: sf.get_fen(v, fen, [m]) for m in legal}
        print(json.dumps({"variant": v, "fen": fen, "written": sf.get_fen(v, fen, []), "counts": counts, "moves": legal, "children": children}))
