#!/usr/bin/env python3
"""Record what LiteLLM's own Router does with `fallcost tune`'s fragment merged into a team's
config, for tests/it/tune.rs.

Run by hand (not by CI), in a virtualenv:

    python3 -m venv /tmp/litellm-venv
    /tmp/litellm-venv/bin/pip install litellm==1.110.2
    LITELLM_LOCAL_MODEL_COST_MAP=True /tmp/litellm-venv/bin/python \
        scripts/litellm-tune-walks.py tests/fixtures/tune/litellm \
        > tests/fixtures/tune/litellm/walks.json

The folder holds `team.yaml` (the team's proxy config) and one `CASE.fragment.yaml` per case:
the LiteLLM fragment `fallcost tune` printed (tests/it/tune.rs checks that tune still prints
it byte for byte). For every case the fragment is merged into the team's config as its
header comment says: each fragment `model_list` entry's `litellm_params` and `model_info`
keys into the team's deployments of the same `model_name` (an entry whose group the team
lacks is added), `router_settings.fallbacks` entry by entry (the fragment's entry for a group
replaces the team's), and every other `router_settings` key set as it is. The merged config is loaded
into `litellm.Router` (`model_list` and every `router_settings` key), with
`litellm.acompletion` replaced by a function that records the call (model group, model,
timeout) and raises `InternalServerError`: every deployment fails. Then REQUESTS requests go
to the fragment's primary group, one after another within the same minute, and each one's
walk is recorded: the calls in order, and the error that ended it.

Also recorded, as the Router holds them: its fallbacks, its model group retry policy, and
per deployment its timeout, cooldown_time and allowed_fails_policy.
"""
import asyncio
import copy
import importlib.metadata
import json
import os
import sys

import yaml

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm  # noqa: E402
from litellm import Router  # noqa: E402

REQUESTS = 3
CALLS = []


async def failing_completion(*args, **kwargs):
    """Every deployment fails: record the call, raise a retryable error."""
    meta = kwargs.get("metadata") or kwargs.get("litellm_metadata") or {}
    CALLS.append(
        {
            "group": meta.get("model_group"),
            "model": kwargs.get("model"),
            "timeout": kwargs.get("timeout"),
        }
    )
    raise litellm.InternalServerError(
        message="mocked failure", llm_provider="openai", model=kwargs.get("model")
    )


litellm.acompletion = failing_completion


def merge(team, fragment):
    """The fragment merged into the team's config (see the module doc)."""
    out = copy.deepcopy(team)
    models = out.setdefault("model_list", [])
    for entry in fragment.get("model_list") or []:
        mine = [d for d in models if str(d.get("model_name")) == str(entry["model_name"])]
        if not mine:
            models.append(copy.deepcopy(entry))
            continue
        for d in mine:
            for key in ("litellm_params", "model_info"):
                extra = dict(entry.get(key) or {})
                if key == "litellm_params":
                    extra.pop("model", None)  # the team's deployment stays the team's
                d.setdefault(key, {}).update(extra)
    settings = out.setdefault("router_settings", {})
    for key, value in (fragment.get("router_settings") or {}).items():
        if key == "fallbacks":
            # entry by entry: the fragment's entry for a group replaces the team's
            mine = [e for e in settings.get("fallbacks") or [] if not set(e) & {k for f in value for k in f}]
            settings["fallbacks"] = mine + copy.deepcopy(value)
        else:
            settings[key] = copy.deepcopy(value)
    return out


def router_of(config):
    return Router(model_list=config.get("model_list") or [], **(config.get("router_settings") or {}))


async def walk(router, name):
    CALLS.clear()
    error = None
    try:
        await router.acompletion(model=name, messages=[{"role": "user", "content": "hi"}])
    except Exception as e:  # the last failure of the walk
        error = type(e).__name__
    return {"calls": list(CALLS), "error": error}


def settings_of(router, config):
    deployments = []
    for d in router.get_model_list() or []:
        params = d.get("litellm_params") or {}
        info = d.get("model_info") or {}
        deployments.append(
            {
                "model_name": d.get("model_name"),
                "model": params.get("model"),
                "timeout": params.get("timeout"),
                "cooldown_time": params.get("cooldown_time"),
                "allowed_fails_policy": info.get("allowed_fails_policy"),
            }
        )
    policy = config.get("router_settings", {}).get("model_group_retry_policy") or {}
    return {
        "fallbacks": router.fallbacks,
        "model_group_retry_policy": {
            group: {k: v for k, v in dict(p).items() if v is not None}
            for group, p in (getattr(router, "model_group_retry_policy", None) or policy).items()
        },
        "deployments": deployments,
    }


def main():
    folder = sys.argv[1]
    with open(os.path.join(folder, "team.yaml"), encoding="utf-8") as f:
        team = yaml.safe_load(f)
    out = {
        "litellm_version": importlib.metadata.version("litellm"),
        "requests": REQUESTS,
        "cases": {},
    }
    for file in sorted(os.listdir(folder)):
        if not file.endswith(".fragment.yaml"):
            continue
        with open(os.path.join(folder, file), encoding="utf-8") as f:
            fragment = yaml.safe_load(f)
        config = merge(team, fragment)
        router = router_of(config)
        primary = str(fragment["model_list"][0]["model_name"])
        walks = [asyncio.run(walk(router, primary)) for _ in range(REQUESTS)]
        out["cases"][file[: -len(".fragment.yaml")]] = {
            "primary": primary,
            "settings": settings_of(router, config),
            "walks": walks,
        }
    json.dump(out, sys.stdout, indent=1, sort_keys=True, default=str)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
