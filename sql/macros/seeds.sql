{#- The values of `column` of a seed (or any relation), in `order_by` order, as SQL string
    literals: `'a', 'b'`. Read with run_query while the model is rendered (nothing is read while
    the project is parsed), for the places DuckDB takes no parameter and no query, such as the
    columns of a pivot. -#}
{% macro seed_values(relation, column, order_by) -%}
{%- if execute -%}
{%- for value in run_query('select ' ~ column ~ ' from ' ~ relation ~ ' order by ' ~ order_by).columns[0].values() -%}
'{{ value | replace("'", "''") }}'{{ ", " if not loop.last }}
{%- endfor -%}
{%- endif -%}
{%- endmacro %}
