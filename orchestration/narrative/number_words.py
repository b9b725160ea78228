"""Numbers in words and the units figures are written with, for `figures.py`.

Chinese numerals before a measure word (`三成` 30%, `两倍` 2×, `十个文件` 10 files, `百分之四十`
40%), Chinese words (`一半`, `翻倍`), English number words (`three times`, `twenty-one`) and
words (`twice`, `halves`): each comes back as (value, unit, text, position), a rounding by
nature. `unit_of` names a unit as written (`倍` and `×` are both `x`).
"""

from __future__ import annotations

import re

# a unit as written -> its canonical name (units that compare as equal share one)
UNITS = {
    "%": "%",
    "％": "%",
    "percent": "%",
    "per cent": "%",
    "个百分点": "pp",
    "百分点": "pp",
    "pp": "pp",
    "percentage points": "pp",
    "percentage point": "pp",
    "x": "x",
    "×": "x",
    "倍": "x",
    "times": "x",
    "-fold": "x",
    "fold": "x",
    "ns": "ns",
    "µs": "us",
    "us": "us",
    "ms": "ms",
    "毫秒": "ms",
    "s": "s",
    "sec": "s",
    "secs": "s",
    "second": "s",
    "seconds": "s",
    "秒": "s",
    "min": "min",
    "mins": "min",
    "minute": "min",
    "minutes": "min",
    "分钟": "min",
    "h": "h",
    "hr": "h",
    "hrs": "h",
    "hour": "h",
    "hours": "h",
    "小时": "h",
    "d": "d",
    "day": "d",
    "days": "d",
    "天": "d",
    "kb": "KB",
    "kib": "KiB",
    "mb": "MB",
    "mib": "MiB",
    "gb": "GB",
    "gib": "GiB",
    "tb": "TB",
    "tib": "TiB",
    "k": "K",
    "m": "M",
    "b": "B",
    "tokens/s": "tokens/s",
    "token/s": "tokens/s",
    "tok/s": "tokens/s",
    "samples/s": "samples/s",
    "it/s": "it/s",
    "tflops": "TFLOPS",
    "qps": "QPS",
    "lines": "lines",
    "line": "lines",
    "loc": "lines",
    "行": "lines",
    "行代码": "lines",
    "files": "files",
    "file": "files",
    "个文件": "files",
    "文件": "files",
}


def unit_of(text: str) -> str:
    """The canonical unit of `text` as written after a number (`''` when it is none)."""
    return UNITS.get(text.strip().lower(), UNITS.get(text.strip(), ""))


_ZH_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_ZH_POWERS = {"十": 10, "百": 100, "千": 1000, "万": 10_000}
_ZH_NUMERAL = "[零〇一二两三四五六七八九十百千万]+"
_ZH_MEASURE = (
    r"(?P<measure>成|倍|个百分点|个文件|个|项|次|处|行|毫秒|秒|分钟|小时|天|周|名|位|条|种|类|份"
    r"|块|台|轮)"
)
_ZH_FIGURE = re.compile(
    rf"(?:(?P<frac>百|千)分之(?P<pnum>{_ZH_NUMERAL})|(?P<num>{_ZH_NUMERAL})[多余]?{_ZH_MEASURE})"
)
_ZH_WORDS = {
    "一半": (50.0, "%"),
    "减半": (50.0, "%"),
    "半数": (50.0, "%"),
    "翻倍": (2.0, "x"),
    "翻番": (2.0, "x"),
    "翻一番": (2.0, "x"),
    "翻了一番": (2.0, "x"),
    "翻两番": (4.0, "x"),
}
_EN_ONES = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_EN_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_EN_VALUE = {w: i for i, w in enumerate(_EN_ONES)} | {
    w: 20 + 10 * i for i, w in enumerate(_EN_TENS)
}
_EN_NUMBER = (
    rf"(?:(?:{'|'.join(_EN_TENS)})(?:-(?:{'|'.join(_EN_ONES[1:10])}))?|{'|'.join(_EN_ONES)})"
)
_EN_FIGURE = re.compile(
    rf"\b(?P<num>{_EN_NUMBER})(?:\s+(?P<scale>hundred|thousand))?"
    r"(?:\s*(?P<unit>times|-fold|fold|percent|per cent|percentage points?|"
    r"(?:milli)?seconds?|minutes?|hours?|days?|lines|files))?\b",
    re.IGNORECASE,
)
_EN_WORDS = re.compile(
    r"\b(?P<w>twice|doubles|doubled|doubling|triples|tripled|tripling|quadruples|quadrupled|"
    r"halves|halved|halving|by half|in half)\b",
    re.IGNORECASE,
)
_EN_WORD_VALUES = {
    "twice": (2.0, "x"),
    "doubl": (2.0, "x"),
    "tripl": (3.0, "x"),
    "quadrupl": (4.0, "x"),
    "halv": (50.0, "%"),
    "half": (50.0, "%"),
}


def zh_number(numeral: str) -> float | None:
    """A Chinese numeral's value: 三 3, 十五 15, 二十 20, 一百二十 120, 三万 30000."""
    total, current = 0, 0
    for ch in numeral:
        if ch in _ZH_DIGITS:
            current = _ZH_DIGITS[ch]
        elif ch in _ZH_POWERS:
            power = _ZH_POWERS[ch]
            if power == 10_000:
                total = (total + (current or 0)) * power
            else:
                total += (current or 1) * power
            current = 0
        else:
            return None
    return float(total + current)


def zh_words(text: str) -> list[tuple[float, str, str, int]]:
    found = []
    for word, (value, unit) in _ZH_WORDS.items():
        for match in re.finditer(word, text):
            found.append((value, unit, word, match.start()))
    for match in _ZH_FIGURE.finditer(text):
        if match.group("frac"):
            value = zh_number(match.group("pnum"))
            unit = "%" if match.group("frac") == "百" else "‰"
        else:
            value = zh_number(match.group("num"))
            measure = match.group("measure")
            unit = unit_of(measure) if measure not in ("成", "倍") else ""
            if measure == "成":
                value, unit = (value or 0) * 10, "%"
            elif measure == "倍":
                unit = "x"
        if value is None:
            continue
        # a number word is coarse by nature: always compared as a marked rounding
        found.append((value, unit, match.group(), match.start()))
    return found


def en_words(text: str) -> list[tuple[float, str, str, int]]:
    found = []
    for match in _EN_FIGURE.finditer(text):
        words = match.group("num").lower().split("-")
        value = float(sum(_EN_VALUE.get(w, 0) for w in words))
        if match.group("scale"):
            value *= 100 if match.group("scale").lower() == "hundred" else 1000
        unit = unit_of(match.group("unit") or "")
        found.append((value, unit, match.group(), match.start()))
    for match in _EN_WORDS.finditer(text):
        word = match.group("w").lower().split()[-1]
        base = next((k for k in _EN_WORD_VALUES if word.startswith(k)), None)
        if base is None:
            continue
        value, unit = _EN_WORD_VALUES[base]
        found.append((value, unit, match.group(), match.start()))
    return found
