"""Descriptions from Google, NumPy and Sphinx docstrings."""

from __future__ import annotations

from selectools.tools import tool
from selectools.tools._docstrings import parse_docstring


def descriptions(t) -> dict[str, str]:
    return {k: v["description"] for k, v in t.schema()["parameters"]["properties"].items()}


def test_google_style() -> None:
    @tool
    def search(query: str, limit: int = 10, *, exact: bool = False) -> str:
        """Search the web.

        Looks things up.

        Args:
            query (str): What to look for,
                spread over two lines.
            limit: Max results.
            exact: Match the whole phrase.

        Returns:
            The results.
        """
        return query

    assert search.description == "Search the web.\n\nLooks things up."
    assert descriptions(search) == {
        "query": "What to look for, spread over two lines.",
        "limit": "Max results.",
        "exact": "Match the whole phrase.",
    }


def test_numpy_style() -> None:
    @tool
    def scale(x: float, factor, y=1):
        """Scale a value.

        Parameters
        ----------
        x : float
            The value.
        factor, y : float
            Multipliers
            (both of them).

        Returns
        -------
        float
        """
        return x

    assert scale.description == "Scale a value."
    assert descriptions(scale) == {
        "x": "The value.",
        "factor": "Multipliers (both of them).",
        "y": "Multipliers (both of them).",
    }


def test_sphinx_style() -> None:
    @tool
    def send(to: str, body: str) -> str:
        """Send a message.

        :param to: The recipient
            address.
        :param str body: The text.
        :returns: A receipt.
        """
        return to

    assert send.description == "Send a message."
    assert descriptions(send) == {"to": "The recipient address.", "body": "The text."}


def test_docstring_without_sections_is_used_whole() -> None:
    @tool()
    def calculate(a: int, b: int, operation: str = "add") -> str:
        """
        Perform arithmetic operations on two numbers.
        Supports add, subtract, multiply, divide.
        """
        return ""

    assert calculate.description == (
        "Perform arithmetic operations on two numbers.\nSupports add, subtract, multiply, divide."
    )
    assert descriptions(calculate)["a"] == "Parameter 'a'"


def test_explicit_description_wins_over_docstring() -> None:
    @tool(description="Explicit")
    def f(x: int) -> str:
        """Docstring.

        Args:
            x: The x.
        """
        return ""

    assert f.description == "Explicit"
    assert descriptions(f) == {"x": "The x."}


def test_parse_edge_cases() -> None:
    assert parse_docstring(None).description == ""
    assert parse_docstring("   ").params == {}
    parsed = parse_docstring("Only args.\n\nArgs:\n    *args: extra\n    **kw: more")
    assert parsed.params == {"args": "extra", "kw": "more"}
    assert parsed.description == "Only args."
