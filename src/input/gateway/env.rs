//! The environment a gateway config is read in: LiteLLM's proxy reads a `litellm_params` value
//! written `os.environ/NAME` from its environment when it starts, and a config filled by
//! `envsubst` has its `${NAME}` placeholders replaced before the proxy reads it. fallcost reads
//! such a model id as the proxy would: from `--env NAME=value` (repeatable, the proxy's
//! environment given on the command line), else from the environment fallcost runs in.

/// The variables a config's model ids are read from: `--env` values over the process's own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Env {
    /// `--env NAME=value`, in the order given (a later one wins).
    pub given: Vec<(String, String)>,
}

impl Env {
    /// The environment with `given` (`--env`) over the process's.
    pub fn new(given: &[(String, String)]) -> Env {
        Env {
            given: given.to_vec(),
        }
    }

    /// The value of `name`: the last `--env` for it, else the process environment's; `None`
    /// when neither sets it (an empty value counts as not set, as no model id is empty).
    pub fn var(&self, name: &str) -> Option<String> {
        self.given
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var(name).ok())
            .filter(|v| !v.is_empty())
    }

    /// The model id `model` names when it is read from the environment ([`model_from_env`]
    /// with [`Env::var`]); `None` for an id written out or a variable not set.
    pub fn model(&self, model: &str) -> Option<String> {
        model_from_env(model, &|name| self.var(name))
    }
}

/// The model id `model` names when it is read from the environment (`os.environ/NAME`, as
/// LiteLLM's proxy reads any `litellm_params` value at start; or `${NAME}` placeholders, as a
/// config filled by `envsubst` is) and every variable it names is set (`var` reads one, `None`
/// or empty for a variable not set): `None` for a model id written out, or a variable not set.
pub fn model_from_env(model: &str, var: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    if let Some(name) = model.strip_prefix("os.environ/") {
        return var(name).filter(|v| !v.is_empty());
    }
    if !model.contains("${") {
        return None;
    }
    let mut out = String::new();
    let mut rest = model;
    while let Some(start) = rest.find("${") {
        let end = rest[start..].find('}')? + start;
        out.push_str(&rest[..start]);
        out.push_str(&var(&rest[start + 2..end]).filter(|v| !v.is_empty())?);
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    Some(out)
}

/// Whether a model id is read from the environment when the proxy starts (`os.environ/NAME`,
/// `${NAME}`): the config does not say which model it is.
pub fn is_templated(model: &str) -> bool {
    model.starts_with("os.environ/") || model.contains("${")
}

/// The variables a model id read from the environment names, in order, each once:
/// `os.environ/PRIMARY` → `PRIMARY`, `${VENDOR}/${MODEL}` → `VENDOR`, `MODEL`; none for an id
/// written out (or a `${` never closed).
pub fn template_vars(model: &str) -> Vec<String> {
    if let Some(name) = model.strip_prefix("os.environ/") {
        return vec![name.to_string()];
    }
    let mut out: Vec<String> = Vec::new();
    let mut rest = model;
    while let Some(start) = rest.find("${") {
        let Some(end) = rest[start..].find('}').map(|e| e + start) else {
            break;
        };
        let name = rest[start + 2..end].to_string();
        if !name.is_empty() && !out.contains(&name) {
            out.push(name);
        }
        rest = &rest[end + 1..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model id read from the environment is the variable's value when it is set (every
    /// variable of a `${NAME}` template), else none.
    #[test]
    fn model_ids_from_the_environment() {
        let env = |name: &str| match name {
            "PRIMARY" => Some("openai/gpt-4o".to_string()),
            "VENDOR" => Some("anthropic".to_string()),
            "EMPTY" => Some(String::new()),
            _ => None,
        };
        assert_eq!(
            model_from_env("os.environ/PRIMARY", &env).as_deref(),
            Some("openai/gpt-4o")
        );
        assert_eq!(model_from_env("os.environ/UNSET", &env), None);
        assert_eq!(model_from_env("os.environ/EMPTY", &env), None);
        assert_eq!(
            model_from_env("${PRIMARY}", &env).as_deref(),
            Some("openai/gpt-4o")
        );
        assert_eq!(
            model_from_env("${VENDOR}/claude-haiku-4-5", &env).as_deref(),
            Some("anthropic/claude-haiku-4-5")
        );
        assert_eq!(model_from_env("${VENDOR}/${UNSET}", &env), None);
        assert_eq!(model_from_env("${VENDOR", &env), None);
        assert_eq!(model_from_env("openai/gpt-4o", &env), None);
    }

    /// `--env` wins over the process environment, the last one given over an earlier one, and
    /// an empty value is not set.
    #[test]
    fn given_values_win_over_the_process_environment() {
        // PATH is set in any test process: a given value wins over it.
        assert!(Env::default().var("PATH").is_some());
        let env = Env::new(&[
            ("PATH".into(), "anthropic/claude-haiku-4-5".into()),
            ("FALLCOST_TEST_MODEL".into(), "openai/gpt-4o".into()),
            ("FALLCOST_TEST_MODEL".into(), "openai/gpt-4.1".into()),
            ("FALLCOST_TEST_EMPTY".into(), String::new()),
        ]);
        assert_eq!(
            env.var("PATH").as_deref(),
            Some("anthropic/claude-haiku-4-5")
        );
        assert_eq!(
            env.model("os.environ/FALLCOST_TEST_MODEL").as_deref(),
            Some("openai/gpt-4.1")
        );
        assert_eq!(env.var("FALLCOST_TEST_EMPTY"), None);
        assert_eq!(env.model("${FALLCOST_TEST_UNSET_ANYWHERE}"), None);
    }

    #[test]
    fn the_variables_a_template_names() {
        assert_eq!(template_vars("os.environ/PRIMARY"), vec!["PRIMARY"]);
        assert_eq!(
            template_vars("${VENDOR}/${MODEL}-${VENDOR}"),
            vec!["VENDOR", "MODEL"]
        );
        assert!(template_vars("openai/gpt-4o").is_empty());
        assert!(template_vars("${OPEN").is_empty());
        assert!(is_templated("${A}/b") && is_templated("os.environ/A"));
        assert!(!is_templated("openai/gpt-4o"));
    }
}
