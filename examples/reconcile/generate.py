#!/usr/bin/env python3
"""Write the made-up exports of README's "Reconcile against the bill" (run from the
repository's root: python3 examples/reconcile/generate.py).

The team of team.toml: 1 request per second for the 7 UTC days 2026-11-09 to 2026-11-15,
Sonnet 5 first, GPT-6 Sol on a failure; sessions of 20 share a 10,000-token prefix. Tokens
are counted request by request as the providers bill them:

- Sonnet 5 answers every request but the 0.2% that fail fast (rounded to whole requests): 1,000
  fresh input tokens, 9,000 prefix tokens read from the cache, the missed 1,000 written (5-minute
  TTL), 400 output tokens;
- a steady failover is a cold Sol request: the 11,000 input tokens uncached, 400 output;
- 2026-11-12 10:00-12:00 UTC Anthropic is down (incidents.csv): its 7,200 requests go to Sol,
  of which 0.2% (14) fail there too; each of the window's 360 sessions starts cold on Sol (its
  first request pays the prefix uncached, later ones read 9,000 and pay 1,000 uncached), and
  each writes Sonnet's whole prefix again on its first request back (10,000 written, none read).

The costs are those tokens at the providers' list prices (the 2026-07 table): Anthropic's
cost report in cents as decimal strings, OpenAI's in USD, one result per token type.
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
DAYS = [f"2026-11-{d:02d}" for d in range(9, 16)]
START = 1794182400  # 2026-11-09T00:00:00Z
INCIDENT_DAY = "2026-11-12"
PER_DAY = 86_400
Q = 0.002
PREFIX, HIT, FRESH, OUT = 10_000, 0.9, 1_000, 400
WINDOW, SESSIONS, WINDOW_FAILED = 7_200, 360, 14
SONNET = {"in": 2.00, "read": 0.20, "write": 2.50, "out": 10.00}
SOL = {"in": 2.00, "cached": 0.20, "out": 10.00}


def day_tokens(day):
    served = PER_DAY - (WINDOW if day == INCIDENT_DAY else 0)
    failovers = round(served * Q)
    a = served - failovers
    read, written = int(PREFIX * HIT), PREFIX - int(PREFIX * HIT)
    sonnet = {
        "uncached": a * FRESH,
        "read": a * read,
        "write": a * written,
        "out": a * OUT,
    }
    sol = {"requests": failovers, "input": failovers * (FRESH + PREFIX), "cached": 0, "out": failovers * OUT}
    if day == INCIDENT_DAY:
        sonnet["read"] -= SESSIONS * read
        sonnet["write"] += SESSIONS * read
        n = WINDOW - WINDOW_FAILED
        sol["requests"] += n
        sol["input"] += n * (FRESH + PREFIX)
        sol["cached"] += (n - SESSIONS) * read
        sol["out"] += n * OUT
    return sonnet, sol


def write(name, doc):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def main():
    a_usage, a_cost, o_usage, o_cost = [], [], [], []
    for i, day in enumerate(DAYS):
        s, o = day_tokens(day)
        start, end = f"{day}T00:00:00Z", f"{DAYS[i + 1] if i + 1 < len(DAYS) else '2026-11-16'}T00:00:00Z"
        a_usage.append({
            "starting_at": start, "ending_at": end,
            "results": [{
                "uncached_input_tokens": s["uncached"],
                "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": s["write"]},
                "cache_read_input_tokens": s["read"],
                "output_tokens": s["out"],
                "server_tool_use": {"web_search_requests": 0},
                "api_key_id": None, "workspace_id": None,
                "model": "claude-sonnet-5", "service_tier": "standard", "context_window": "0-200k",
            }],
        })
        costs = []
        for token_type, n, price in [
            ("uncached_input_tokens", s["uncached"], SONNET["in"]),
            ("output_tokens", s["out"], SONNET["out"]),
            ("cache_read_input_tokens", s["read"], SONNET["read"]),
            ("cache_creation.ephemeral_5m_input_tokens", s["write"], SONNET["write"]),
        ]:
            costs.append({
                "currency": "USD", "amount": f"{n * price / 1e6 * 100:.4f}",
                "workspace_id": None, "description": f"Claude Sonnet 5 Usage - {token_type}",
                "cost_type": "tokens", "context_window": "0-200k", "model": "claude-sonnet-5",
                "service_tier": "standard", "token_type": token_type,
            })
        a_cost.append({"starting_at": start, "ending_at": end, "results": costs})
        t0 = START + i * 86_400
        o_usage.append({
            "object": "bucket", "start_time": t0, "end_time": t0 + 86_400,
            "results": [{
                "object": "organization.usage.completions.result",
                "input_tokens": o["input"], "output_tokens": o["out"],
                "input_cached_tokens": o["cached"], "input_audio_tokens": 0, "output_audio_tokens": 0,
                "num_model_requests": o["requests"], "project_id": None, "user_id": None,
                "api_key_id": None, "model": "gpt-6-sol", "batch": False, "service_tier": None,
            }],
        })
        o_cost.append({
            "object": "bucket", "start_time": t0, "end_time": t0 + 86_400,
            "results": [
                {"object": "organization.costs.result",
                 "amount": {"value": round(v, 6), "currency": "usd"},
                 "line_item": f"gpt-6-sol, {kind}", "project_id": None}
                for kind, v in [
                    ("input", (o["input"] - o["cached"]) * SOL["in"] / 1e6),
                    ("cached input", o["cached"] * SOL["cached"] / 1e6),
                    ("output", o["out"] * SOL["out"] / 1e6),
                ]
            ],
        })
    # two pages each, as fetched with limit=4 then the next_page cursor
    def anthropic_pages(buckets, cursor):
        return [
            {"data": buckets[:4], "has_more": True, "next_page": cursor},
            {"data": buckets[4:], "has_more": False, "next_page": None},
        ]

    def openai_pages(buckets, cursor):
        return [
            {"object": "page", "data": buckets[:4], "has_more": True, "next_page": cursor},
            {"object": "page", "data": buckets[4:], "has_more": False, "next_page": None},
        ]

    write("anthropic-usage.json", anthropic_pages(a_usage, "page_MjAyNi0xMS0xM1QwMDowMDowMFo="))
    write("anthropic-costs.json", anthropic_pages(a_cost, "page_MjAyNi0xMS0xM1QwMDowMDowMFp="))
    write("openai-usage.json", openai_pages(o_usage, "AAAAAGkWEIAiJdKOAAAAAGkTbYA="))
    write("openai-costs.json", openai_pages(o_cost, "AAAAAGkWEIAiJdKOAAAAAGkTbYB="))


if __name__ == "__main__":
    main()
