{#- Models land where the runner puts them: in the schema named after their first folder
    under sql/ (`staging`, `intermediate`, `marts`), seeds in `seeds`; anything else in the
    target's schema. No per-model config: a new folder is a new schema, as in the runner. -#}
{% macro generate_schema_name(custom_schema_name, node) -%}
    {%- if custom_schema_name is not none -%}
        {{ custom_schema_name | trim }}
    {%- elif node.resource_type == 'seed' -%}
        seeds
    {%- elif node.resource_type == 'model' and node.fqn | length > 2 -%}
        {{ node.fqn[1] }}
    {%- else -%}
        {{ target.schema }}
    {%- endif -%}
{%- endmacro %}
