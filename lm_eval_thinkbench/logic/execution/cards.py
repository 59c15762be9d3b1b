"""Card and tile games judged by rule (execution): the five-element duel and mahjong-like hands
(LogicGame's 相生相克 and 麻将类).

Both games are stated in full, so that every step is a deterministic consequence of the rules
and the moves given: the duel asks what the rounds so far prove about the opponent's cards
(every consistent assignment is counted), the tiles game asks for each round's call.
"""

from __future__ import annotations

import itertools
import random
import string
from collections import Counter
from collections.abc import Sequence
from typing import Any

from lm_eval_thinkbench.logic.base import ExecutionTaskType, State
from lm_eval_thinkbench.logic.registry import register

# ----- the five-element duel ------------------------------------------------------------------

#: Cards in the generating cycle: each generates the next (and the last generates the first);
#: each overcomes the one two places after it.
CARDS = "ABCDE"
CARD_NAMES = {
    "en": ("Wood", "Fire", "Earth", "Metal", "Water"),
    "zh": ("木", "火", "土", "金", "水"),
}
ROUNDS = (2, 3, 4, 5)
WIN, LOSE, DRAW = "win", "lose", "draw"


def outcome(mine: str, theirs: str) -> str:
    """The result for the player of ``mine``: a card that generates the other loses, a card
    that overcomes the other wins, equal cards draw."""
    d = (CARDS.index(theirs) - CARDS.index(mine)) % 5
    return {0: DRAW, 1: LOSE, 2: WIN, 3: LOSE, 4: WIN}[d]


_OUTCOMES = {(m, o): outcome(m, o) for m in CARDS for o in CARDS}
_PERMUTATIONS = {k: tuple(itertools.permutations(CARDS, k)) for k in range(len(CARDS) + 1)}


def inferred(mine: Sequence[str], results: Sequence[str]) -> str:
    """What the rounds prove about the opponent's cards: per round, the card if every
    assignment of distinct cards consistent with all the rounds agrees on it, else ``*``."""
    fits = [
        perm
        for perm in _PERMUTATIONS[len(mine)]
        if all(_OUTCOMES[m, o] == r for m, o, r in zip(mine, perm, results, strict=True))
    ]
    return "".join(fits[0][k] if len({f[k] for f in fits}) == 1 else "*" for k in range(len(mine)))


_DUEL_HEAD = {
    "en": "Two players each hold the five cards {cards}. In each round both play one card at "
    "the same time, and a card once played is gone: neither player plays a card twice. "
    "Generating: {gen}. Overcoming: {over}. In a round, the player whose card generates the "
    "other's card loses; the player whose card overcomes the other's card wins; equal cards "
    "draw (any two different cards are in exactly one of these relations). You played:\n"
    "{rounds}\nWhat do the rounds prove about your opponent's cards? A step, after each round, "
    "lists for every round so far the opponent's card if the rounds up to then leave only one "
    "possibility for it, else *, as one string after the round number and a colon (e.g. 3:B*D "
    "after round 3). The answer is that string for all rounds, without the round number "
    "(e.g. B*D).",
    "zh": "两位玩家各有五张牌 {cards}。每一回合双方同时出一张牌，出过的牌不能再出："
    "每人每张牌只出一次。"
    "相生：{gen}。相克：{over}。在一个回合中，自己的牌生对方的牌，则自己输；自己的牌克对方的牌，则自己赢；"
    "两张牌相同则平局（任意两张不同的牌恰好属于其中一种关系）。你出的牌：\n{rounds}\n"
    "这些回合能推出对手出了什么牌？每个回合之后写一步：对到目前为止的每个回合，"
    "如果到此为止的回合只留下一种可能，就写出对手那张牌，否则写 *，整体写成一个字符串，"
    "前面加回合数和冒号（例如第 3 回合后写 3:B*D）。"
    "答案是全部回合的这个字符串，不带回合数（例如 B*D）。",
}
_ROUND = {
    "en": "Round {k}: you played {card}, and you {result}.",
    "zh": "第 {k} 回合：你出 {card}，结果{result}。",
}
_RESULT = {
    "en": {WIN: "won", LOSE: "lost", DRAW: "drew"},
    "zh": {WIN: "你赢", LOSE: "你输", DRAW: "平局"},
}


@register
class Elements(ExecutionTaskType):
    """The opponent's cards are drawn, then the results follow; items whose final inference
    proves nothing are redrawn."""

    family, name = "cards", "elements"
    version = 2

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        n = ROUNDS[level]
        while True:
            mine = rng.sample(CARDS, n)
            theirs = rng.sample(CARDS, n)
            results = [outcome(m, o) for m, o in zip(mine, theirs, strict=True)]
            if inferred(mine, results).strip("*"):
                return {"mine": mine, "results": results}

    def run(self, state: State) -> list[str]:
        mine, results = state["mine"], state["results"]
        return [f"{k}:{inferred(mine[:k], results[:k])}" for k in range(1, len(mine) + 1)]

    def result(self, last_step: str) -> str:
        return last_step.split(":", 1)[1]

    def describe(self, state: State, lang: str) -> str:
        names = CARD_NAMES[lang]
        sep = "、" if lang == "zh" else ", "
        cards = sep.join(f"{c} ({n})" for c, n in zip(CARDS, names, strict=True))
        verb = {"en": ("{0} generates {1}", "{0} overcomes {1}"), "zh": ("{0}生{1}", "{0}克{1}")}
        gen = sep.join(verb[lang][0].format(CARDS[i], CARDS[(i + 1) % 5]) for i in range(5))
        over = sep.join(verb[lang][1].format(CARDS[i], CARDS[(i + 2) % 5]) for i in range(5))
        rounds = "\n".join(
            _ROUND[lang].format(k=k, card=m, result=_RESULT[lang][r])
            for k, (m, r) in enumerate(zip(state["mine"], state["results"], strict=True), 1)
        )
        return _DUEL_HEAD[lang].format(cards=cards, gen=gen, over=over, rounds=rounds)


# ----- mahjong-like tiles ---------------------------------------------------------------------

PASS, PENG, CHI, HU = "0", "1", "2", "3"
#: Tiles: rounds per level, the calls in play per level (pass is always one).
TILE_ROUNDS = (2, 3, 4, 5)
TILE_CALLS = ((PENG,), (PENG, CHI), (PENG, CHI, HU), (PENG, CHI, HU))
#: Tile letters: a run of consecutive letters, so that sequences are common.
TILE_SPAN = 12
HAND = 13


def is_hu(tiles: Sequence[str]) -> bool:
    """Fourteen tiles that split into four sets (three equal letters, or three consecutive
    letters) and one pair."""
    counts = Counter(tiles)

    def sets(c: Counter[str]) -> bool:
        left = sorted(k for k, v in c.items() if v)
        if not left:
            return True
        x = left[0]
        if c[x] >= 3:
            c[x] -= 3
            ok = sets(c)
            c[x] += 3
            if ok:
                return True
        y, z = chr(ord(x) + 1), chr(ord(x) + 2)
        if c[y] and c[z]:
            for t in (x, y, z):
                c[t] -= 1
            ok = sets(c)
            for t in (x, y, z):
                c[t] += 1
            return ok
        return False

    if len(tiles) != HAND + 1:
        return False
    for pair in sorted(k for k, v in counts.items() if v >= 2):
        counts[pair] -= 2
        ok = sets(counts)
        counts[pair] += 2
        if ok:
            return True
    return False


def call(hand: Sequence[str], tile: str, calls: Sequence[str]) -> str:
    """The call for ``tile`` joining ``hand``: hu before peng before chi, else pass."""
    if HU in calls and is_hu([*hand, tile]):
        return HU
    if PENG in calls and list(hand).count(tile) >= 2:
        return PENG
    if CHI in calls:
        near = {chr(ord(tile) + d) for d in (-2, -1, 1, 2)} & set(hand)
        t = ord(tile)
        if any({chr(t + a), chr(t + b)} <= near for a, b in ((-2, -1), (-1, 1), (1, 2))):
            return CHI
    return PASS


_TILE_RULES = {
    PENG: {
        "en": "Peng (1): the hand already holds two tiles equal to the new tile.",
        "zh": "碰（1）：手中已有两张与新牌相同的牌。",
    },
    CHI: {
        "en": "Chi (2): two tiles of the hand and the new tile are three consecutive letters "
        "(like ABC or OPQ; the new tile may be any of the three).",
        "zh": "吃（2）：手中的两张牌与新牌组成三个连续的字母"
        "（如 ABC、OPQ；新牌可以是三者中的任何一张）。",
    },
    HU: {
        "en": "Hu (3): the hand with the new tile (14 tiles) splits into four sets and one pair: "
        "a set is three equal letters (AAA) or three consecutive letters (ABC), the pair two "
        "equal letters.",
        "zh": "胡（3）：手牌加上新牌（共 14 张）可以分成四组和一对："
        "每组是三个相同字母（AAA）或三个连续字母（ABC），一对是两个相同字母。",
    },
}
_TILE_HEAD = {
    "en": "A game of letter tiles. The hand starts with 13 tiles: {hand}. Each round one tile "
    "is added and the round's call is decided; then (except in the last round) one tile is "
    "removed, which does not change the call. Calls:\n{rules}\n- Pass (0): none of the above. "
    "{order}\nRounds:\n{rounds}\nA step is the call of one round, as its number (e.g. 1). The "
    "answer is the call of the last round.",
    "zh": "一个字母牌游戏。初始手牌有 13 张：{hand}。每回合加入一张新牌并判定本回合的结果；"
    "然后（最后一回合除外）移除一张牌，移除不影响判定。判定规则：\n{rules}\n"
    "- 过（0）：以上都不满足。{order}\n回合：\n"
    "{rounds}\n每一步写出一个回合的判定结果，用数字表示（例如 1）。答案是最后一回合的判定结果。",
}
_TILE_ORDER = {
    (PENG, CHI): {
        "en": "When both calls apply, peng comes before chi.",
        "zh": "两个结果同时满足时，碰优先于吃。",
    },
    (PENG, CHI, HU): {
        "en": "When several calls apply, hu comes before peng and peng before chi.",
        "zh": "多个结果同时满足时，胡优先于碰，碰优先于吃。",
    },
}
_TILE_ROUND = {
    "en": ("Round {k}: add {add}, then remove {remove}.", "Round {k}: add {add}."),
    "zh": ("第 {k} 回合：加入 {add}，然后移除 {remove}。", "第 {k} 回合：加入 {add}。"),
}


def _ready_hand(rng: random.Random, letters: str) -> tuple[list[str], str]:
    """Thirteen tiles one short of hu (four sets and a pair, less one tile), and that tile."""
    while True:
        tiles: list[str] = []
        for _ in range(4):
            i = rng.randrange(len(letters) - 2)
            tiles += [letters[i]] * 3 if rng.random() < 0.4 else list(letters[i : i + 3])
        tiles += [rng.choice(letters)] * 2
        if max(Counter(tiles).values()) <= 4:
            missing = rng.choice(tiles)
            tiles.remove(missing)
            return sorted(tiles), missing


@register
class Tiles(ExecutionTaskType):
    """Hands are built backwards from the last round, so that the calls vary: the hand before
    the last tile is often one short of hu (from level 2) and new tiles are often ones the
    hand can use."""

    family, name = "cards", "tiles"
    version = 2

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        start = rng.randrange(len(string.ascii_uppercase) - TILE_SPAN + 1)
        letters = string.ascii_uppercase[start : start + TILE_SPAN]
        rounds, calls = TILE_ROUNDS[level], TILE_CALLS[level]
        while True:
            if HU in calls and rng.random() < 0.4:
                hand, winning = _ready_hand(rng, letters)
                added = [winning if rng.random() < 0.6 else self._useful(rng, hand, letters)]
            else:
                hand = sorted(rng.choice(letters) for _ in range(HAND))
                added = [self._useful(rng, hand, letters)]
            removed: list[str] = []
            for _ in range(rounds - 1):  # walk back: undo "add y, remove x"
                y = rng.choice(hand)
                x = rng.choice([c for c in letters if c != y])
                hand = sorted([*hand, x])
                hand.remove(y)
                added.insert(0, y)
                removed.insert(0, x)
            state = {"hand": "".join(hand), "add": added, "remove": removed, "calls": list(calls)}
            if self._playable(state) and len(set(self.run(state))) > min(1, rounds - 1):
                return state

    @staticmethod
    def _useful(rng: random.Random, hand: list[str], letters: str) -> str:
        if rng.random() < 0.3:
            return rng.choice(letters)
        near = {chr(ord(c) + d) for c in hand for d in (-1, 0, 1)} & set(letters)
        return rng.choice(sorted(near))

    @staticmethod
    def _playable(state: State) -> bool:
        """No letter more than four times, and every removed tile is in the hand."""
        hand = list(state["hand"])
        for k, tile in enumerate(state["add"]):
            hand.append(tile)
            if max(Counter(hand).values()) > 4:
                return False
            if k < len(state["remove"]):
                if state["remove"][k] not in hand:
                    return False
                hand.remove(state["remove"][k])
        return True

    def run(self, state: State) -> list[str]:
        hand, out = list(state["hand"]), []
        for k, tile in enumerate(state["add"]):
            out.append(call(hand, tile, state["calls"]))
            hand.append(tile)
            if k < len(state["remove"]):
                hand.remove(state["remove"][k])
        return out

    def describe(self, state: State, lang: str) -> str:
        rules = "\n".join(f"- {_TILE_RULES[c][lang]}" for c in state["calls"])
        order = _TILE_ORDER[tuple(state["calls"])][lang] if len(state["calls"]) > 1 else ""
        n = len(state["add"])
        rounds = "\n".join(
            _TILE_ROUND[lang][k == n].format(
                k=k, add=tile, remove=state["remove"][k - 1] if k < n else ""
            )
            for k, tile in enumerate(state["add"], 1)
        )
        return _TILE_HEAD[lang].format(hand=state["hand"], rules=rules, order=order, rounds=rounds)
