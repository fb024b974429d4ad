#!/usr/bin/env python3
"""A deliberately simple second implementation of Bluff chess (RULES.md §1,
§7.3), built on python-chess. For each game on stdin (a JSON list of action
texts: SAN moves, "pass", "d-" or "d<square>"), it replays the actions and
prints, for every step, the sorted legal action texts and the status, as one
JSON list per game. Hidden information plays no part here: this is the
referee's view."""
import json
import sys

import chess


class Bluff:
    def __init__(self):
        self.board = chess.Board()
        self.alter = {chess.WHITE: None, chess.BLACK: None}
        self.must = {chess.WHITE: None, chess.BLACK: None}
        self.deciding = None  # (colour, square) after a death move
        self.result = None

    def status(self, empty_mate=True):
        # empty_mate=False: the endings that come before a pending decision
        # (the empty mate waits for the checker's decision, RULES.md 7.3.2).
        if self.result:
            return self.result
        if self.deciding:
            return "ongoing"
        b = self.board
        me = b.turn
        if not any(True for _ in b.legal_moves):
            return ("win " + ("0" if me == chess.BLACK else "1") + " checkmate") if b.is_check() else "draw stalemate"
        y = self.must[me]
        if empty_mate and y is not None and b.is_check() and not any(m.from_square == y for m in b.legal_moves):
            return "win " + ("0" if me == chess.BLACK else "1") + " empty mate"
        if chess.popcount(b.occupied) == 2:
            return "draw dead position"
        if b.is_fivefold_repetition():
            return "draw fivefold repetition"
        if b.halfmove_clock >= 150:
            return "draw seventy-five-move rule"
        return "ongoing"

    def actions(self):
        if self.status() != "ongoing":
            return []
        b = self.board
        if self.deciding:
            colour, t = self.deciding
            return ["d-"] + ["d" + chess.square_name(s) for s in chess.SquareSet(b.occupied_co[colour]) if s != t]
        y = self.must[b.turn]
        if y is not None:
            moves = [m for m in b.legal_moves if m.from_square == y]
            return [b.san(m) for m in moves] if moves else ["pass"]
        return [b.san(m) for m in b.legal_moves]

    def play(self, text):
        b = self.board
        if text == "pass":
            self.must[b.turn] = None
            b.push(chess.Move.null())
            return
        if text.startswith("d") and (text == "d-" or len(text) == 3 and text[1] in "abcdefgh"):
            colour, _ = self.deciding
            if text != "d-":
                y = chess.parse_square(text[1:])
                self.alter[colour] = y
                self.must[colour] = y
            self.deciding = None
            return
        move = b.parse_san(text)
        me = b.turn
        if b.is_en_passant(move):
            captured = chess.square(chess.square_file(move.to_square), chess.square_rank(move.from_square))
        elif b.is_castling(move):
            captured = None
        else:
            captured = move.to_square if b.piece_at(move.to_square) else None
        if b.is_castling(move):
            t = chess.square(6 if chess.square_file(move.to_square) > chess.square_file(move.from_square) else 2,
                             chess.square_rank(move.from_square))
        else:
            t = move.to_square
        b.push(move)
        self.must[me] = None
        self.alter[me] = t
        if captured is not None and captured == self.alter[not me]:
            self.result = "win " + ("0" if me == chess.WHITE else "1") + " alter ego captured"
            return
        if self.status(empty_mate=False) == "ongoing" and b.piece_type_at(t) != chess.KING:
            if any(self.captured_square(m) == t for m in b.legal_moves):
                self.deciding = (me, t)

    def captured_square(self, m):
        b = self.board
        if b.is_en_passant(m):
            return chess.square(chess.square_file(m.to_square), chess.square_rank(m.from_square))
        if b.is_castling(m):
            return None
        return m.to_square if b.piece_at(m.to_square) else None


for line in sys.stdin:
    actions = json.loads(line)
    game = Bluff()
    steps = []
    for text in actions + [None]:
        steps.append([sorted(game.actions()), game.status()])
        if text is not None:
            game.play(text)
    print(json.dumps(steps))
