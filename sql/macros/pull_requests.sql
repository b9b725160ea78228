{#- Two CTEs: `name`, the rows of `rows` with each PR once per week, and `name`_repeated,
    the keys that repeat. A PR twice in a week (a key a data test has failed on: its week is
    not reported) would multiply itself in the joins after it; the repeated keys are found
    first (none unless a test failed) and only their rows are made distinct, since a window
    or a distinct of every row held each row's columns. -#}
{% macro each_pr_once(name, rows) -%}
{{ name }}_repeated as (
    select repo, week_start, number from {{ rows }} group by all having count(*) > 1
),

{{ name }} as (
    select * from {{ rows }} anti join {{ name }}_repeated using (repo, week_start, number)
    union all
    select distinct on (repo, week_start, number) *
    from {{ rows }} semi join {{ name }}_repeated using (repo, week_start, number)
)
{%- endmacro %}
