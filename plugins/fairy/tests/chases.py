"""Repetitions in xiangqi as Fairy-Stockfish judges them (pyffish), as an
independent oracle for arbiter's chasing rule: from positions of seeded
random games, one side moves a rook, cannon, horse or elephant to attack a
piece and the other answers, both move back, twice; Fairy-Stockfish's
verdict after each ply of the
cycle is printed: one JSON object a line, {fen, moves, ends}, `ends` a list
of [ended, value] (value for the player to move: 32000 wins, -32000 loses)."""
import json, random, sys

import pyffish as sf

VARIANT, cases, seed = "xiangqi", int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(seed)
start = sf.start_fen(VARIANT)
made = 0
while made < cases:
    moves = []
    for _ in range(rng.randrange(10, 70)):
        legal = sf.legal_moves(VARIANT, start, moves)
        if not legal:
            break
        moves.append(rng.choice(legal))
    fen = sf.get_fen(VARIANT, start, moves)
    board = fen.split()[0]

    def piece_at(fen_now, sq):
        # The letter on square `sq` (e.g. "a10") of the FEN's board.
        rows = fen_now.split()[0].split("/")
        file, rank = ord(sq[0]) - ord("a"), int(sq[1:])
        row = rows[10 - rank]
        f = 0
        i = 0
        while i < len(row):
            c = row[i]
            if c.isdigit():
                j = i
                while j < len(row) and row[j].isdigit():
                    j += 1
                f += int(row[i:j])
                i = j
                continue
            if f == file:
                return c
            f += 1
            i += 1
        return None

    def split(m):
        # "a1a10" -> ("a1", "a10")
        k = 2 if m[2].isalpha() else 3
        return m[:k], m[k:]

    def attacks_after(fen_now, m):
        # Whether the piece moved by `m` attacks an enemy piece from where it
        # lands: the mover's captures from there, were it to move again.
        after = sf.get_fen(VARIANT, fen_now, [m]).split()
        after[1] = "w" if after[1] == "b" else "b"
        flipped = " ".join(after)
        try:
            again = sf.legal_moves(VARIANT, flipped, [])
        except Exception:
            return False
        to = split(m)[1]
        return any(split(x)[0] == to and piece_at(flipped, split(x)[1]) for x in again)


    # Every cycle of an attacking move of one side, any move of the
    # other, and both moves back (twice), judged after each ply; those that
    # end otherwise than in a plain draw are kept, and one drawn one.
    legal = sf.legal_moves(VARIANT, fen, [])
    attacking = [m for m in legal if (piece_at(fen, split(m)[0]) or "").lower() in "rchb" and attacks_after(fen, m)]
    rng.shuffle(attacking)
    kept_draw = False
    for first in attacking[:4]:
        after = sf.get_fen(VARIANT, fen, [first])
        replies = sf.legal_moves(VARIANT, after, [])
        rng.shuffle(replies)
        for second in replies[:12]:
            a, b = split(first), split(second)
            seq = [first, second, a[1] + a[0], b[1] + b[0]] * 2
            ends, done = [], []
            for m in seq:
                if m not in sf.legal_moves(VARIANT, fen, done):
                    break
                done.append(m)
                ended, value = sf.is_optional_game_end(VARIANT, fen, done)
                ends.append([ended, value])
                if ended:
                    break
            if len(done) < 8:
                continue
            decisive = ends[-1][1] != 0
            if decisive or not kept_draw:
                kept_draw |= not decisive
                print(json.dumps({"fen": fen, "moves": done, "ends": ends}), flush=True)
                made += 1
