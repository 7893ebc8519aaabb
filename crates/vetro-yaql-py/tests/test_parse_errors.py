"""Malformed expressions get the reference's exception: class, message,
position and the offending value (yaql 3.2.0's lexer reads tokens as its
parser asks for them, so the first error in reading order is reported)."""

import pytest

import yaql.language.exceptions as yaql_exc
import yaql.language.factory

ENGINE = yaql.language.factory.YaqlFactory().create()

GRAMMAR = yaql_exc.YaqlGrammarException
LEXICAL = yaql_exc.YaqlLexicalException

CASES = [
    # (expression, class, position, value)
    ('<% ctx().var1', GRAMMAR, 0, '<'),
    ('1 + %', LEXICAL, 4, '%'),
    ('a b %', GRAMMAR, 2, 'b'),
    ('1 2', GRAMMAR, 2, 2),
    ("'a' 2.5", GRAMMAR, 4, 2.5),
    ('1 true', GRAMMAR, 2, True),
    ('1 null', GRAMMAR, 2, None),
    ('1 True', GRAMMAR, 2, 'True'),
    ("1 'a'", GRAMMAR, 2, 'a'),
    ('func(,)', GRAMMAR, 6, ')'),
    ('[1, 2]]', GRAMMAR, 6, ']'),
    ("'abc", LEXICAL, 0, "'"),
    ("'abc' 'd", LEXICAL, 6, "'"),
    ('"abc', LEXICAL, 0, '"'),
    ('12abc', LEXICAL, 0, '1'),
    ('1.5e3', LEXICAL, 2, '5'),
    ('0x10', LEXICAL, 0, '0'),
    ("'x' é", GRAMMAR, 4, 'é'),
    ('#', LEXICAL, 0, '#'),
]


@pytest.mark.parametrize('expr,cls,position,value', CASES)
def test_error_class_position_and_value(expr, cls, position, value):
    with pytest.raises(cls) as info:
        ENGINE(expr)
    assert type(info.value) is cls
    assert info.value.position == position
    assert info.value.value == value
    assert type(info.value.value) is type(value)


def test_messages_are_the_reference_texts():
    with pytest.raises(GRAMMAR) as info:
        ENGINE('1 true')
    assert str(info.value) == \
        "Parse error: unexpected 'True' at position 2 of expression '1 true'"
    with pytest.raises(LEXICAL) as info:
        ENGINE("'abc' 'd")
    assert str(info.value) == \
        "Lexical error: illegal character ''' at position 6"
    with pytest.raises(GRAMMAR) as info:
        ENGINE('(1 + 2')
    assert str(info.value) == 'Parse error: unexpected end of statement'


def test_a_bad_hex_escape_is_the_codec_error():
    with pytest.raises(UnicodeDecodeError) as info:
        ENGINE(r"'\x4g'")
    assert str(info.value) == ("'unicodeescape' codec can't decode bytes in "
                               "position 0-2: truncated \\xXX escape")
    assert ENGINE(r"'\x4'").evaluate() == '\\x4'
