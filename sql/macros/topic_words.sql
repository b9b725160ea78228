{#- The words that start a text rule of seeds/topic_rules.csv (normalised as
    int_pull_request_topic_rules does), as one regular expression of literals: a description
    without any of them as a substring has no word or pair a text rule names, so
    int_pull_request_topics splits only the others into words. Read while the model is
    rendered (run_query, as in dbt; `rules` is ref('topic_rules')), so that the pattern is a
    constant; no text rule gives `''`, which matches every description. -#}
{% macro topic_text_words(rules) -%}
{%- if execute -%}
{%- set words -%}
select coalesce(string_agg(word, '|' order by word), '') from (
    select distinct regexp_replace(split_part(trim(regexp_replace(lower(match), '[-/.\s]+', ' ', 'g')), ' ', 1),
        '([.^$|()\[\]{}*+?\\])', '\\\1', 'g') as word
    from {{ rules }} where source = 'text'
)
{%- endset -%}
'{{ run_query(words).columns[0].values()[0] | replace("'", "''") }}'
{%- else -%}
''
{%- endif -%}
{%- endmacro %}
