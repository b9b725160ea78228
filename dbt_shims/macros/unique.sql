{#- The runner's `unique` test (orchestration/warehouse/checks.py) in dbt: over one column, or
    over several as sql/*.yml write it at a model's level, `- unique: {columns: [repo, number]}`.
    As in the runner, rows whose keys are NULL count too. -#}
{% test unique(model, column_name=none, columns=none) %}
    {%- set keys = columns if columns else [column_name] %}
    select {{ keys | join(', ') }}, count(*) as n_records
    from {{ model }}
    group by {{ keys | join(', ') }}
    having count(*) > 1
{% endtest %}
