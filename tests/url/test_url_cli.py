"""``warckit surt`` in-process."""

from __future__ import annotations

import io

import pytest

from warckit.cli import main


def test_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["surt", "http://www.Example.com/b?z=1&a=2", "dns:alexa.com"]) == 0
    assert capsys.readouterr().out == "com,example)/b?a=2&z=1\ndns:alexa.com\n"


def test_styles_and_flags(capsys: pytest.CaptureFixture[str]) -> None:
    url = "http://www.fa\u00df.de/x"
    assert main(["surt", "--style", "new-style", url]) == 0
    assert main(["surt", "--style", "new-style", "--strip-www", "--idna", "2003", url]) == 0
    assert main(["surt", "--style", "heritrix", url]) == 0
    assert capsys.readouterr().out == (
        "de,xn--fa-hia,www,)/x\nde,fass,)/x\nhttp://(de,fass,www,)/x\n"
    )


def test_stdin_with_a_bad_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("http://a.org/\nhttp://\r\nhttp://b.org/x/\n"))
    assert main(["surt"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "org,a)/\norg,b)/x\n"
    assert captured.err.startswith("warckit surt: error: -, line 2: no host")


def test_bad_argument_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["surt", "http://a.org:99999/", "http://c.org"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "org,c)/\n"
    assert captured.err.startswith("warckit surt: error: argument 1: bad port")


def test_usage_error() -> None:
    assert main(["surt", "--style", "bogus", "x"]) == 2
    assert main(["surt", "--style", "heritrix", "--strip-www", "x"]) == 2
