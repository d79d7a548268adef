"""A program with one misspelt key in a nested argument, which mypy must refuse (not run)."""
from unified_dispatch import Client


def create_price(client: Client) -> None:
    client.billing.create_price(currency="usd", type="graduated", usage={"source": "cost"}, tiers=[{"upTo": None, "unit_amount": "0.2"}])
