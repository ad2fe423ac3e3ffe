"""A small MCP server for notebooks/mcp.ipynb, written with the official MCP SDK.

Run by the notebook as ``python mcp_demo_server.py`` (stdio). ``restart_register``
kills the server in the middle of the call, to show what an agent sees then.
"""

import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("shop")

PRICES = {"laptop": 999, "phone": 699, "tablet": 449}


@server.tool()
def price(product: str) -> str:
    """Look up the price of a product (laptop, phone or tablet)."""
    if product not in PRICES:
        raise ValueError(f"unknown product {product!r}; try one of {', '.join(PRICES)}")
    return f"${PRICES[product]}"


@server.tool()
def restart_register() -> str:
    """Restart the cash register (this one crashes the server)."""
    os._exit(1)


if __name__ == "__main__":
    server.run()
