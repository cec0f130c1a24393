"""A person's product table, as a shop exports it: a SKU, a description in sentences, a price and a weight.

The category each product belongs to is not in the file (the grouping the person wants); it is returned apart.
"""

from pathlib import Path

import numpy as np
import pandas as pd

# category -> (things, where they are used, what they do)
CATEGORIES = {
    "garden": (["hose", "rake", "planter", "lawn mower", "watering can", "hedge trimmer", "seed tray"],
               ["garden", "lawn", "patio", "vegetable bed", "greenhouse"],
               ["waters the plants", "keeps the lawn short", "holds soil and seedlings", "clears fallen leaves"]),
    "kitchen": (["frying pan", "chef's knife", "mixing bowl", "kettle", "cutting board", "saucepan", "whisk"],
                ["kitchen", "stove", "dining table", "oven", "pantry"],
                ["cooks eggs and pancakes", "slices vegetables", "boils water for tea", "bakes bread and cakes"]),
    "office": (["stapler", "desk lamp", "notebook", "ballpoint pen", "filing cabinet", "monitor stand", "paper tray"],
               ["office", "desk", "meeting room", "study", "home office"],
               ["keeps papers in order", "holds printed documents", "writes notes in meetings", "lifts the screen"]),
    "toys": (["building blocks", "teddy bear", "puzzle", "toy train", "kite", "board game", "doll house"],
             ["playroom", "nursery", "park", "family evening", "birthday party"],
             ["keeps children busy for hours", "teaches counting and colours", "flies high on windy days"]),
}
_ADJECTIVES = ["durable", "light", "classic", "compact", "sturdy", "elegant", "practical", "premium"]
_MATERIALS = ["steel", "oak wood", "recycled plastic", "bamboo", "cast iron", "cotton", "aluminium"]


def products_csv(folder, n=300, seed=0):
    """Write ``products.csv`` (sku, description, price, weight) to ``folder``; returns ``(path, category)``."""
    rng = np.random.default_rng(seed)
    names = list(CATEGORIES)
    category = rng.integers(len(names), size=n)
    skus = rng.choice(np.arange(10000, 99999), size=n, replace=False)
    rows = []
    for k, c in enumerate(category):
        things, places, uses = CATEGORIES[names[c]]
        thing, place, use = rng.choice(things), rng.choice(places), rng.choice(uses)
        adjective = rng.choice(_ADJECTIVES)
        description = (f"{'An' if adjective[0] in 'aeiou' else 'A'} {adjective} {thing} of {rng.choice(_MATERIALS)} "
                       f"for the {place}. It {use}.")
        rows.append({"sku": f"SKU-{skus[k]}", "description": description,
                     "price": round(float(rng.lognormal(3 + 0.3 * c, 0.5)), 2),
                     "weight": round(float(rng.gamma(2.0, 0.4 + 0.2 * c)), 3)})
    path = Path(folder) / "products.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path, np.asarray(names)[category]
