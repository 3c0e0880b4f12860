use super::*;

fn read(file: &str, text: &str) -> Result<Bill, InputError> {
    let mut bill = Bill::default();
    parse_into(file, text, &mut bill).map(|()| bill)
}

#[test]
fn each_format_is_told_apart_by_content() {
    let openai_usage = r#"{"data":[{"start_time":0,"end_time":86400,"results":[{"object":"organization.usage.completions.result","input_tokens":10,"output_tokens":1,"model":"m"}]}],"has_more":false,"next_page":null}"#;
    let openai_costs = r#"{"data":[{"start_time":0,"end_time":86400,"results":[{"object":"organization.costs.result","amount":{"value":1,"currency":"usd"},"line_item":"m, input"}]}]}"#;
    let anthropic_costs = r#"{"data":[{"starting_at":"2026-11-02T00:00:00Z","ending_at":"2026-11-03T00:00:00Z","results":[{"amount":"123.45","currency":"USD","cost_type":"tokens","model":"claude-sonnet-5"}]}],"has_more":false,"next_page":null}"#;
    let openrouter = r#"{"data":[{"date":"2026-11-02","model":"openai/m","usage":1,"requests":1,"prompt_tokens":1,"completion_tokens":1}]}"#;
    assert_eq!(detect("a", openai_usage).unwrap(), BillFormat::OpenaiUsage);
    assert_eq!(detect("a", openai_costs).unwrap(), BillFormat::OpenaiCosts);
    assert_eq!(
        detect("a", anthropic_costs).unwrap(),
        BillFormat::AnthropicCosts
    );
    assert_eq!(detect("a", openrouter).unwrap(), BillFormat::Openrouter);
    assert_eq!(detect("a", "date,model\n").unwrap(), BillFormat::Csv);
    let e = detect("x.json", r#"{"data": []}"#).unwrap_err();
    assert!(e.message.contains("`data` is empty"), "{e}");
    // 1970-01-01; the cents string "123.45" is $1.2345
    let b = read("a", openai_usage).unwrap();
    assert_eq!(b.usage[0].day, "1970-01-01");
    assert_eq!(b.usage[0].uncached_input, 10.0);
    let b = read("a", anthropic_costs).unwrap();
    assert!((b.costs[0].usd - 1.2345).abs() < 1e-12);
    assert_eq!(b.costs[0].model, "anthropic/claude-sonnet-5");
}

#[test]
fn a_refused_value_names_its_line_and_field() {
    let text = "{\"data\": [{\"start_time\": 0, \"end_time\": 86400, \"results\": [\n{\"object\": \"organization.usage.completions.result\", \"input_tokens\": 10, \"input_cached_tokens\": 11, \"output_tokens\": 1, \"model\": \"m\"}\n]}]}";
    let e = read("u.json", text).unwrap_err();
    // serde_json reports where it noticed: just past the result's closing brace, which here is
    // the start of line 3 (the result is line 2)
    assert_eq!(e.location.unwrap().line, 3, "{e}");
    assert_eq!(e.field.as_deref(), Some("data[0].results[0]"), "{e}");
    assert!(
        e.message
            .contains("input_cached_tokens (11) above input_tokens (10)"),
        "{e}"
    );
    let text = text.replace(
        "\"input_cached_tokens\": 11, ",
        "\"service_tier\": \"scale\", ",
    );
    let e = read("u.json", &text).unwrap_err();
    assert!(
        e.message
            .contains("allowed: default, auto, standard, flex, priority"),
        "{e}"
    );
}

#[test]
fn line_items_name_their_model() {
    assert_eq!(
        openai::line_item_model("gpt-6-sol, cached input"),
        "gpt-6-sol"
    );
    assert_eq!(
        openai::line_item_model("web search tool calls"),
        "(web search tool calls)"
    );
    assert_eq!(
        openai::line_item_model("File search storage, per GB"),
        "(File search storage, per GB)"
    );
}

#[test]
fn more_pages_to_fetch_is_said() {
    let text = r#"{"data":[{"starting_at":"2026-11-02T00:00:00Z","ending_at":"2026-11-03T00:00:00Z","results":[{"uncached_input_tokens":1,"output_tokens":1,"model":"claude-sonnet-5"}]}],"has_more":true,"next_page":"page_x"}"#;
    let b = read("a.json", text).unwrap();
    assert_eq!(b.notes.len(), 1);
    assert!(
        b.notes[0].contains("has_more: true, next_page \"page_x\""),
        "{}",
        b.notes[0]
    );
}

#[test]
fn an_openai_amount_may_be_a_decimal_string() {
    let text = |v: &str| {
        format!(
            r#"{{"data":[{{"start_time":0,"end_time":86400,"results":[{{"object":"organization.costs.result","amount":{{"value":{v},"currency":"usd"}},"line_item":"gpt-4o-2024-08-06, cached input"}}]}}]}}"#
        )
    };
    let b = read("c.json", &text("\"0.0643\"")).unwrap();
    assert_eq!(b.costs[0].usd, 0.0643);
    assert_eq!(b.costs[0].model, "openai/gpt-4o-2024-08-06");
    let e = read("c.json", &text("\"about 3\"")).unwrap_err();
    assert!(
        e.message
            .contains("amount.value \"about 3\" is not a decimal number"),
        "{e}"
    );
}
