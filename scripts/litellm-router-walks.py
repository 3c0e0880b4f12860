#!/usr/bin/env python3
"""Record how LiteLLM's own Router walks each test config, for tests/it/parity.rs.

Run by hand (not by CI), in a virtualenv:

    python3 -m venv /tmp/litellm-venv
    /tmp/litellm-venv/bin/pip install litellm==1.110.2
    LITELLM_LOCAL_MODEL_COST_MAP=True /tmp/litellm-venv/bin/python \
        scripts/litellm-router-walks.py tests/fixtures/parity > tests/fixtures/parity/walks.json

For every `*.yaml` in the folder it builds `litellm.Router` from the config's `model_list` and
`router_settings` (fallbacks, default_fallbacks, max_fallbacks, model_group_alias,
routing_strategy, enable_tag_filtering) and `litellm_settings` (the fallback settings the proxy
sets on the litellm module), with retries and cooldowns off and invalid deployments
dropped (`ignore_invalid_deployments=True`, as the proxy builds its router), and replaces `litellm.acompletion` with a
function that records the call and raises `InternalServerError`: every deployment fails. Then,
for every model_name group (and every `fallbacks` key that is not a group), it sends one request
and records the walk: the model group and the model of each call, in order.

It also records the first-pick shares of every group with several deployments: the Router's
`get_available_deployment` called SAMPLES times (simple-shuffle's random choice; LiteLLM 1.110
picks in native code, so the shares are counted, not read), as counts per deployment model.
tests/it/parity.rs compares fallcost's chains with the walks exactly and its shares with the
counts within a binomial tolerance.

For every deployment whose config sets a per-token price (in `litellm_params` or `model_info`)
it records the price the router bills it at (`prices`: the deployment's model info as the
router registered it, by `litellm_params.model`), and for every config its Router refuses to
build (`refused`), the error.
"""
import asyncio
import importlib.metadata
import json
import os
import sys

import yaml

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm  # noqa: E402
from litellm import Router  # noqa: E402

SAMPLES = 4000
ROUTER_KEYS = (
    "fallbacks",
    "default_fallbacks",
    "max_fallbacks",
    "model_group_alias",
    "routing_strategy",
    "enable_tag_filtering",
)
PRICE_KEYS = ("input_cost_per_token", "output_cost_per_token")
# What the proxy sets on the litellm module from `litellm_settings` and the Router reads when
# its own arguments do not set them (`litellm/router_config.py`, `current_dynamic_config`).
MODULE_KEYS = ("fallbacks", "default_fallbacks", "context_window_fallbacks", "content_policy_fallbacks", "max_fallbacks")
MODULE_DEFAULTS = {k: getattr(litellm, k) for k in MODULE_KEYS}

CALLS = []


async def failing_completion(*args, **kwargs):
    """Every deployment fails: record the call, raise a retryable error."""
    meta = kwargs.get("metadata") or kwargs.get("litellm_metadata") or {}
    CALLS.append({"group": meta.get("model_group"), "model": kwargs.get("model")})
    raise litellm.InternalServerError(
        message="mocked failure", llm_provider="openai", model=kwargs.get("model")
    )


litellm.acompletion = failing_completion


def requests_of(config):
    """The names to request: every group (wildcard routes aside), then every fallbacks key
    that is not a group."""
    names = []
    for d in config.get("model_list") or []:
        name = str(d["model_name"])
        if "*" not in name and name not in names:
            names.append(name)
    for entry in (config.get("router_settings") or {}).get("fallbacks") or []:
        for key in entry:
            if key != "*" and key not in names:
                names.append(key)
    return names


def router_of(config):
    module = config.get("litellm_settings") or {}
    for k in MODULE_KEYS:
        setattr(litellm, k, module.get(k, MODULE_DEFAULTS[k]))
    settings = config.get("router_settings") or {}
    kwargs = {k: settings[k] for k in ROUTER_KEYS if k in settings}
    return Router(
        model_list=config.get("model_list") or [],
        num_retries=0,
        disable_cooldowns=True,
        ignore_invalid_deployments=True,
        **kwargs,
    )


async def walk(router, name):
    CALLS.clear()
    error = None
    try:
        await router.acompletion(model=name, messages=[{"role": "user", "content": "hi"}])
    except Exception as e:  # the last failure of the walk
        error = type(e).__name__
    return {"walk": list(CALLS), "error": error}


def shares(router, name):
    counts = {}
    for _ in range(SAMPLES):
        d = router.get_available_deployment(model=name)
        model = d["litellm_params"]["model"]
        counts[model] = counts.get(model, 0) + 1
    return counts


def billed(router, config):
    """The per-token prices the router bills each deployment with a price of its own at."""
    out = {}
    priced = set()
    for d in config.get("model_list") or []:
        sections = (d.get("litellm_params") or {}, d.get("model_info") or {})
        if any(k in sec for sec in sections for k in PRICE_KEYS):
            priced.add(str(d["litellm_params"]["model"]))
    for d in router.get_model_list():
        model = d["litellm_params"]["model"]
        if model not in priced:
            continue
        info = router.get_deployment_model_info(model_id=d["model_info"]["id"], model_name=model)
        out[model] = {k: info.get(k) for k in PRICE_KEYS}
    return out


def main():
    folder = sys.argv[1]
    out = {
        "litellm_version": importlib.metadata.version("litellm"),
        "samples": SAMPLES,
        "configs": {},
        "prices": {},
        "refused": {},
    }
    for file in sorted(os.listdir(folder)):
        if not file.endswith(".yaml"):
            continue
        with open(os.path.join(folder, file), encoding="utf-8") as f:
            config = yaml.safe_load(f)
        try:
            router = router_of(config)
        except Exception as e:  # LiteLLM refuses the config: say why, walk nothing
            out["refused"][file] = f"{type(e).__name__}: {e}"
            continue
        groups = {}
        for name in requests_of(config):
            record = asyncio.run(walk(router, name))
            members = [d for d in config["model_list"] if str(d["model_name"]) == name]
            if len(members) > 1:
                record["first_pick"] = shares(router, name)
            groups[name] = record
        out["configs"][file] = groups
        prices = billed(router, config)
        if prices:
            out["prices"][file] = prices
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
