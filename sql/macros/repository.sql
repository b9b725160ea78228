{#- The lake's folder names a repository `owner__name` (GitHub owners cannot contain
    underscores); this is `owner/name` again, the spelling every model keeps. -#}
{% macro repo_of_slug(column) -%}
regexp_replace({{ column }}, '__', '/')
{%- endmacro %}

{#- Whether `key` (a name without case or `-_. `) is the repository's `name` (normalised
    alike), alone or with one of the `languages` before or after it (`pypolars`,
    `polarsrs`): compared piece by piece, so that no list of every language joined to the name
    is made for each word of each PR. -#}
{% macro names_repository(key, name, languages) -%}
({{ key }} = {{ name }}
    or ends_with({{ key }}, {{ name }})
        and list_contains({{ languages }}, left({{ key }}, length({{ key }}) - length({{ name }})))
    or starts_with({{ key }}, {{ name }})
        and list_contains({{ languages }}, substr({{ key }}, length({{ name }}) + 1)))
{%- endmacro %}
