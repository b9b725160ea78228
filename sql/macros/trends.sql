{#- The trend word of a count against its trailing average (seeds/thresholds.csv, read as
    `settings`): unknown without the trailing weeks; new with no count before in the whole
    extracted history (`last_week` is the last earlier week with one); back when there was
    one before but none in the trailing weeks; rising and falling need both the ratio and an
    absolute change of at least the min_delta; else steady (also nothing against nothing). -#}
{% macro trend_word(count, average, last_week, known, settings='s') -%}
case
    when not {{ known }} then 'unknown'
    when {{ count }} = 0 and coalesce({{ average }}, 0) = 0 then 'steady'
    when {{ last_week }} is null then 'new'
    when coalesce({{ average }}, 0) = 0 then 'back'
    when {{ count }} >= {{ settings }}.rising_ratio * {{ average }}
         and {{ count }} - {{ average }} >= {{ settings }}.rising_min_delta then 'rising'
    when {{ count }} <= {{ settings }}.falling_ratio * {{ average }}
         and {{ average }} - {{ count }} >= {{ settings }}.falling_min_delta then 'falling'
    else 'steady'
end
{%- endmacro %}
