"""Perft of ini variants by Fairy-Stockfish's rules (pyffish), as an
independent oracle for arbiter's ini plugin: for each variant (or
`variant@FEN`), its start position and positions of seeded random games, each with the number of
legal move sequences of 1..DEPTH plies (none after an immediate end; a
ply less, two at most, from a position of over 200 moves).
Prints one JSON object a line: {variant, fen, written, counts, moves,
children} (the FEN as Fairy-Stockfish writes it back, and after each legal
move), and with `san` each legal move's text in the variant's notation."""
import json, random, sys

import pyffish as sf

variants, depth, games, plies = sys.argv[1].split(","), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
# A fifth argument `san`: each position also gives each legal move as
# Fairy-Stockfish writes it by default (`san`: {move: text}).
with_san = sys.argv[5:] == ["san"]


def counts(v, fen, moves, depth, legal=None):
    """Leaf counts at 1..depth plies below `fen` + `moves`, in one walk.
    Each pyffish call costs about 2 ms, so none is made twice, and none
    asks whether the game has ended: `legal_moves` lists no move once it
    has ended by an immediate rule (Fairy-Stockfish's move generator
    checks that first), so nothing is counted below an end."""
    found = [0] * depth
    legal = sf.legal_moves(v, fen, moves) if legal is None else legal
    found[0] = len(legal)
    if depth > 1:
        for m in legal:
            for i, n in enumerate(counts(v, fen, moves + [m], depth - 1)):
                found[i + 1] += n
    return found


for spec in variants:
    # `variant@FEN` starts the random games from FEN instead of the start position.
    v, _, given = spec.partition("@")
    start = given or sf.start_fen(v)
    rng = random.Random(7)
    positions = [start]
    for g in range(games):
        moves = []
        for _ in range(rng.randrange(plies // 2, plies + 1)):
            legal = sf.legal_moves(v, start, moves)
            if not legal:
                break
            moves.append(rng.choice(legal))
        positions.append(sf.get_fen(v, start, moves))
    for fen in positions:
        legal = sorted(sf.legal_moves(v, fen, []))
        # A position of more than 200 moves (duck chess, the Amazons,
        # isolation) is counted a ply less deep, two at most: three would
        # take pyffish hours, one call a position below (its moves and the
        # position after each are still compared).
        d = depth if len(legal) <= 200 else max(1, min(depth - 1, 2))
        # The sample (depth under 3) leaves out the positions after each
        # move of a position of over 500 (the Amazons' 2176, duck chess's).
        children = {m: sf.get_fen(v, fen, [m]) for m in legal} if depth >= 3 or len(legal) <= 500 else None
        case = {"variant": v, "fen": fen, "written": sf.get_fen(v, fen, []), "counts": counts(v, fen, [], d, legal), "moves": legal, "children": children}
        if with_san:
            case["san"] = {m: sf.get_san(v, fen, m) for m in legal}
        print(json.dumps(case))
