{#- Seeds typed as the runner types them (orchestration/models/seeds.py): by DuckDB's own
    reading of the CSV file, not by dbt's guess from its first rows (which makes whole numbers
    INTEGER where the runner's are BIGINT). The table takes read_csv's columns; the rows follow
    it, so a reload into a kept table (`dbt seed` without --full-refresh) reads the same. -#}
{% macro _runner_read_csv(model) -%}
    read_csv('{{ adapter.get_seed_file_path(model) }}', header = true)
{%- endmacro %}

{% macro duckdb__create_csv_table(model, agate_table) %}
    {% set sql %}
        create table {{ this.render() }} as select * from {{ _runner_read_csv(model) }} limit 0
    {% endset %}
    {% call statement('_') -%}
        {{ sql }}
    {%- endcall %}
    {{ return(sql) }}
{% endmacro %}

{% macro duckdb__load_csv_rows(model, agate_table) %}
    {% set sql %}
        insert into {{ this.render() }} select * from {{ _runner_read_csv(model) }}
    {% endset %}
    {% do adapter.add_query(sql, abridge_sql_log=True) %}
    {{ return(sql) }}
{% endmacro %}
