package testfiles

// HouseholdRules is a small household test with a list of members: a
// child under five or a pregnant member makes the household a candidate,
// the members' earnings are summed against a limit by household size,
// and every member must live in the state; the highest earnings of a
// member aged 16 or over are an output.
const HouseholdRules = `ruleset "demo/household"
section household_help
name "Household help"
effective 2026-01-01

source act "Household Help Act" url "https://example.org/act" licence "public-domain"

list member "People in the household" up to 6
  question "How many people live in your household, counting yourself?"
  label "Household size"
  weight 1

field member.age int weight 2
  question "How old is this person?"
  label "Age"
  unit "years"
  range 0..130
field member.pregnant bool weight 3
  question "Is this person pregnant?"
field member.earnings decimal weight 4
  question "How much does this person earn a month?"
  unit "USD a month"
  range 0..
field member.resident bool weight 5
  question "Does this person live in the state?"

value household_earnings decimal "Household earnings" unit "USD a month" output {
  sum(member.earnings)
  cite act "the earnings of every member of the household"
}

value young_children int "Children under five" unit "children" output {
  count(member where member.age < 5)
  cite act "each child under the age of five"
}

value top_earnings decimal "Highest earnings of a member aged 16 or over" unit "USD a month" output {
  max(member.earnings where member.age >= 16 else 0)
  cite act "the highest earnings of a member aged 16 or over, or none"
}

group category all "Who the help is for" {
  criterion young_or_pregnant "A child under five or a pregnant member" {
    any(member where member.age < 5 or member.pregnant)
    cite act "a household with a child under the age of five or a pregnant member"
  }
  criterion residents "Everyone lives in the state" {
    all(member where member.resident)
    cite act "every member of the household lives in the state"
  }
  criterion income "Earnings within the limit" {
    household_earnings <= 1000 + 500 * count(member)
    cite act "earnings not more than 1,000 dollars and 500 dollars for each member"
  }
}

outcome category
`
