"""The not-found check: a section that says it does not know answers nothing, in any language the answerer reads."""

from __future__ import annotations

import re

from query.language.terms import fold

NOT_FOUND_CHARS = 160  # "I could not find …": a short section (a long one says something, and may say this too)
# A word of every phrase `_NOT_FOUND` knows (its cheap filter): "not", "t" of "don't", "kein", "わか"…
_NOT_FOUND_WORDS = frozenset(
    "not no t unable unknown ne n aucun aucune pas nicht kein keine keinen weiss weiß non nao não niet geen "
    "ninguna ninguno cannot".split()
)
_NOT_FOUND_CJK = tuple("わか 分か 見つ 記載 不明 不知 找不 没有 未 모르 찾을 없 لا لم غير".split())
_WORDS = re.compile(r"\w+")
# "I don't know", "not found", "not mentioned", in the languages the answerer reads (case- and accent-folded).
_NOT_FOUND = re.compile(
    r"\b(?:could ?n[o']t|can ?n[o']t|unable to|did ?n[o']t|do ?n[o']t|does ?n[o']t) (?:find|locate|determine|know|say"
    r"|answer|mention|state|specify|contain|include|provide)"
    r"|\bno (?:information|mention|answer|data|record|details?)\b|\bnot (?:found|mentioned|stated|specified|provided"
    r"|available|given|listed|indicated|included|present|known)\b|\bi (?:don'?t|do not) know\b|\bunknown\b"
    r"|\bne (?:sais|trouve|mentionne|precise|contient|figure|indique)\b|\bn'(?:ai|est|y a|indique|apparait|figure)\b"
    r"|\baucune? (?:information|mention|donnee|reponse)\b|\bpas (?:trouve|mentionne|indique|precise|disponible)\b"
    r"|\bno (?:se|lo|la|encontre|encuentro|encontramos|hay|aparece|figura|consta|menciona|indica|sabemos)\b"
    r"|\bninguna? (?:informacion|mencion|dato)\b|\bnao (?:sei|encontrei|ha|consta|menciona|foi)\b"
    r"|\bnicht (?:gefunden|angegeben|erwahnt|enthalten|bekannt|verfugbar|finden|sagen)\b|\bweiss (?:ich )?nicht\b"
    r"|\bkeine? (?:angabe|information|informationen|antwort|hinweis)\b"
    r"|\bnon (?:so|trovo|ho trovato|e indicat|e menzionat|e specificat|risulta)\b|\bnessuna informazione\b"
    r"|\bweet (?:ik )?(?:het )?niet\b|\bniet (?:gevonden|vermeld|bekend)\b|\bgeen informatie\b"
    r"|わかりません|分かりません|見つかりません|見つけられません|記載されていません|記載がありません|不明"
    r"|不知道|找不到|没有找到|未找到|没有提到|未提及|모르겠|찾을 수 없|없습니다"
    r"|لا أعرف|لم أجد|غير مذكور"
)


def says_not_found(text: str) -> bool:
    """The text says it does not know, in any language the answerer reads. (Such a statement is short, and holds
    one of a few words: the full pattern only reads the texts that do.)"""
    if len(text) > NOT_FOUND_CHARS:
        return False
    low = text.casefold()
    if _NOT_FOUND_WORDS.isdisjoint(_WORDS.findall(low)) and not any(hint in low for hint in _NOT_FOUND_CJK):
        return False
    return _NOT_FOUND.search(fold(text).replace("’", "'")) is not None
