"""Sets of deal numbers kept as ranges, so a study of 10^12 seeds costs no more memory than one of ten.

>>> s = parse_seeds("0:1000000000000,42,7:9")
>>> len(s), 5 in s, 10**12 in s
(1000000000000, True, False)
>>> list(parse_seeds("9,3,3,0:2"))
[0, 1, 3, 9]
"""

from __future__ import annotations

import bisect
from typing import Iterable, Iterator

from ..errors import CanfieldError

__all__ = ["SeedSet", "parse_seeds", "SEED_LIMIT"]

SEED_LIMIT = 2**64  # seeds are 0..2^64-1 (SPEC §2)


class SeedSet:
    """Distinct seeds as sorted, merged half-open ranges ``[start, stop)``; iterates in increasing order."""

    __slots__ = ("_starts", "_stops", "_len")

    def __init__(self, ranges: Iterable[tuple[int, int]] = ()):
        merged: list[list[int]] = []
        for a, b in sorted((int(a), int(b)) for a, b in ranges if b > a):
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        self._starts = [a for a, _ in merged]
        self._stops = [b for _, b in merged]
        self._len = sum(b - a for a, b in merged)

    @classmethod
    def of(cls, seeds: "SeedSet | range | Iterable[int]") -> "SeedSet":
        """A SeedSet from a SeedSet (itself), a range (no materialising) or any iterable of ints."""
        if isinstance(seeds, SeedSet):
            return seeds
        if isinstance(seeds, range) and seeds.step == 1:
            return cls([(seeds.start, seeds.stop)])
        if isinstance(seeds, str):
            return parse_seeds(seeds)
        if not isinstance(seeds, Iterable):
            raise CanfieldError(f"seeds must be a range, a list of seed numbers or text such as '0:1000', "
                                f"not {type(seeds).__name__}")
        listed = list(seeds)
        for s in listed:
            if isinstance(s, bool) or not isinstance(s, int):
                raise CanfieldError(f"seeds must be whole numbers, not {s!r}")
        return cls((s, s + 1) for s in listed)

    def ranges(self) -> Iterator[tuple[int, int]]:
        return zip(self._starts, self._stops)

    def blocks(self, size: int) -> Iterator[tuple[int, int]]:
        """The ranges cut into pieces of at most ``size`` seeds."""
        for a, b in self.ranges():
            for lo in range(a, b, size):
                yield lo, min(lo + size, b)

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[int]:
        for a, b in self.ranges():
            yield from range(a, b)

    def __contains__(self, seed: object) -> bool:
        if not isinstance(seed, int):
            return False
        i = bisect.bisect_right(self._starts, seed) - 1
        return i >= 0 and seed < self._stops[i]

    def __repr__(self) -> str:
        parts = [str(a) if b == a + 1 else f"{a}:{b}" for a, b in self.ranges()]
        return f"SeedSet({','.join(parts[:5])}{',...' if len(parts) > 5 else ''}; {self._len} seeds)"


def parse_seeds(text: str) -> SeedSet:
    """``"0:10000"`` (start:stop, stop excluded), ``"7"``, or ``"1,5,9"`` (mixable: ``"0:10,42"``); lazy."""
    ranges = []
    for part in str(text).split(","):
        part = part.strip()
        try:
            bounds = [int(x) for x in part.split(":")]
        except ValueError:
            raise CanfieldError(f"bad seeds {text!r}: expected START:STOP, a seed, or a comma list") from None
        if len(bounds) == 1:
            bounds.append(bounds[0] + 1)
        elif len(bounds) != 2:
            raise CanfieldError(f"bad seeds {text!r}: expected START:STOP, a seed, or a comma list")
        a, b = bounds
        if b < a:
            raise CanfieldError(f"seed range {part!r} is empty: stop must not be below start")
        if a < 0 or b > SEED_LIMIT:
            raise CanfieldError(f"seeds {part!r} are out of range 0..2**64-1")
        ranges.append((a, b))
    return SeedSet(ranges)
