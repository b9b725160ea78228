{{ config(materialized='ephemeral') }}

-- Each description's kept lines, normalised, with the signals it can hold and where its "Test"
-- section starts and ends: a step of int_pull_request_descriptions, inlined where it is read.
-- The description is read as its author wrote it: HTML comments, fenced code and quoted
-- template instructions (`> ...`) are dropped, and hard-wrapped lines are joined back into
-- their paragraph, list item or table row.

-- the author's text: comments and fenced code dropped, and a blank line after each heading so
-- that the joining below never runs a heading into the line under it
with stripped as (
    select
        *,
        case when contains(t2, '#')
            then regexp_replace(t2, '(?m)^([ \t]{0,3}#{1,6}[ \t][^\n]*)$', '\1' || chr(10), 'g') else t2
        end as text
    from (
        select
            *,
            case when contains(t1, '```') or contains(t1, '~~~')
                then regexp_replace(t1, '(?s)(```|~~~).*?(```|~~~)', chr(10), 'g') else t1
            end as t2
        from (
            select
                *,
                case when contains(body, '<!--')
                    then regexp_replace(replace(body, chr(13), ''), '(?s)<!--.*?(-->|$)', '', 'g')
                    else replace(body, chr(13), '')
                end as t1
            from {{ ref('int_pull_request_description_texts') }}
        )
    )
),

-- A line that does not start a list item, a table row, a heading or a quote continues the one
-- before it (descriptions are often wrapped at 72 columns). Each line is normalised in the
-- same pass over the description, so line and words keep the same position.
joined as (
    select
        *,
        string_split(norm_text, chr(10)) as raw_norms,
        -- the description's words, to decide which signals to look for
        string_split(replace(norm_text, chr(10), ' '), ' ') as body_words
    from (
    select
        repo, week_start, number, body, title_hardware_word, title_severity_phrase,
        string_split(joined_text, chr(10)) as raw_lines,
        regexp_replace(lower(joined_text), '[^a-z0-9\n]+', ' ', 'g') as norm_text
    from (
        select
            repo, week_start, number, body, title_hardware_word, title_severity_phrase,
            case when body = '' then '' else
                regexp_replace(text, '\n[ \t]*([^\s|#>*+\-\d]|\*\*|\d+\.\d|\d+[^\d.)\s])', ' \1', 'g')
            end as joined_text
        from stripped
    )
    )
),

-- Quotes (with the lines they carry on) are template instructions, not the author's words.
-- Which signals a description can hold, from its words: each later step runs only for those.
segmented as (
    select
        j.repo, j.week_start, j.number, j.body, j.title_hardware_word, j.title_severity_phrase,
        j.raw_lines, j.raw_norms,
        contains(j.body, '[ ]') or contains(j.body, '[x]') or contains(j.body, '[X]') as has_boxes,
        len(list_filter(['test', 'tests', 'testing', 'tested', 'untested', 'verification'],
            lambda w: list_contains(j.body_words, w))) > 0 as has_test,
        len(list_filter(v.hardware_tokens, lambda w: list_contains(j.body_words, w))) > 0 as has_hardware,
        len(list_filter(v.severity_tokens, lambda w: list_contains(j.body_words, w))) > 0 as has_severity,
        len(list_filter(v.breaking_tokens, lambda w: list_contains(j.body_words, w))) > 0 as has_breaking
    from joined j
    cross join {{ ref('int_pull_request_description_vocabulary') }} v
),

-- each kept line with its position, and whether it is a heading or a checklist box (' ', 'x')
lines as (
    select
        s.* exclude (raw_lines, raw_norms),
        case when s.has_boxes or s.has_test or s.has_hardware or s.has_severity or s.has_breaking then
            list_transform(list_filter(
                list_transform(s.raw_lines, lambda x, i: {'text': x, 'norm': ' ' || trim(s.raw_norms[i]) || ' '}),  -- noqa: LT01
                lambda l: trim(l.text) <> '' and not starts_with(ltrim(l.text), '>')
            ), lambda l, i: {
                'i': i,
                'text': l.text,
                'norm': l.norm,
                'heading': case
                    when starts_with(ltrim(l.text), '#') then regexp_matches(l.text, '^\s{0,3}#{1,6}(\s|$)')
                    else starts_with(ltrim(l.text), '**')
                         and (ends_with(rtrim(l.text), '**') or ends_with(rtrim(l.text), '**:'))
                end,
                'box': case
                    when substr(ltrim(l.text), 1, 3) in ('- [', '* [', '+ [') and substr(ltrim(l.text), 5, 1) = ']'
                        then lower(substr(ltrim(l.text), 4, 1))
                    else ''
                end
            })
        else [] end as lines
    from segmented s
),

-- the "Test" section: from its heading to the next heading
sections as (
    select
        l.*,
        case when l.has_test then
            list_filter(l.lines, lambda x: case when x.heading then regexp_matches(x.norm,
                '^ (tests?|testing|test plan|tests? done|how (was|is) (this|it) tested|verification) $') else false end)[1].i
        end as test_heading_at
    from lines l
),

-- the section ends at the next heading
select
    s.*,
    coalesce(
        list_filter(s.lines, lambda x: x.heading and x.i > s.test_heading_at)[1].i, 1000000
    ) as test_section_end
from sections s
