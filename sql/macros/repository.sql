{#- The lake's folder names a repository `owner__name` (GitHub owners cannot contain
    underscores); this is `owner/name` again, the spelling every model keeps. -#}
{% macro repo_of_slug(column) -%}
regexp_replace({{ column }}, '__', '/')
{%- endmacro %}
