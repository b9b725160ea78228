{#- The incremental partition filter, written once: in an incremental run, the rows of the
    run's repositories (`scoped('repo')`) and weeks; in a full build (and under dbt, which
    always builds whole) nothing, every row. Arguments, all optional:
    - `back`: a SQL expression of whole weeks the read also reaches before the run's first
      week (`back="(select key_weeks - 1 from key_settings)"`), for a model whose week
      compares with the weeks before it;
    - `weeks`: `between` (the run's weeks, the default), `since` (from the first week, `back`
      included, onwards), `until` (up to the last week) or none (every week);
    - `repo`: false to keep every repository (a read already kept to the run's);
    - `of`: the table alias that qualifies the columns (`of='h'`: `h.repo`, `h.week_start`);
    - `keyword`: `where` (the default) or `and`, the word that joins the filter to the query.
    The arguments are SQL text, evaluated only in an incremental run: dbt renders the call
    without a run's `var('start_week')` ever being asked for. -#}
{% macro in_run_weeks(back=none, weeks='between', repo=true, of=none, keyword='where') -%}
{%- if is_incremental() -%}
{%- set column = of ~ '.week_start' if of else 'week_start' -%}
{%- set back_term = ' - to_weeks(' ~ back ~ ')' if back is not none else '' -%}
{%- if weeks == 'between' -%}
{%- set week_term = column ~ ' between ' ~ var('start_week') ~ back_term ~ ' and ' ~ var('end_week') -%}
{%- elif weeks == 'since' -%}
{%- set week_term = column ~ ' >= ' ~ var('start_week') ~ back_term -%}
{%- elif weeks == 'until' -%}
{%- set week_term = column ~ ' <= ' ~ var('end_week') -%}
{%- else -%}
{%- set week_term = '' -%}
{%- endif -%}
{%- set repo_term = scoped('repo', of ~ '.repo' if of else none) if repo else '' -%}
{{ keyword }} {{ [repo_term, week_term] | select | join(' and ') }}
{%- endif -%}
{%- endmacro %}
