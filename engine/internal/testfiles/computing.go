package testfiles

// ValueRules computes a small net income test with named values: the shape
// of a benefit rule that works out a figure before it compares.
const ValueRules = `ruleset "demo/net-income"
section net_income
name "Net income test"
effective 2025-10-01

source law "Act" url "https://example.org/act" licence "public-domain"

field income.earned decimal weight 1
  unit "USD"
  range 0..
field income.unearned decimal weight 2
  unit "USD"
  range 0..
field household.size int weight 1
  range 0..
field household.elderly bool weight 3

value gross_income decimal "Gross monthly income" unit "USD" output {
  income.earned + income.unearned
  cite law "all income"
}

value earned_deduction decimal "Earned income deduction" unit "USD" {
  round(income.earned * 0.2, 0.01)
  cite law "twenty percent of earned income"
}

value standard_deduction decimal "Standard deduction" unit "USD" {
  if household.size <= 3 then 204 else 217
  cite law "the standard deduction"
}

value net_income decimal "Net monthly income" unit "USD" output {
  max(gross_income - earned_deduction - standard_deduction, 0)
  cite law "net income"
}

value per_person decimal "Income per person" unit "USD" output {
  floor(net_income / household.size, 0.01)
  cite law "per member"
}

value limit decimal "Net income limit" unit "USD" {
  if household.elderly then 2000 else 1000 + 300 * (household.size - 1)
  cite law "the limit"
}

group net all "Net income" {
  criterion under "Net income within the limit" {
    net_income <= limit
    cite law "net income within the limit"
  }
}
`

// TableRules holds a two-year table of income limits by region and
// household size, with the "each additional member" row poverty-based
// tables have, and a table of one figure per year.
const TableRules = `ruleset "demo/limits"
section limits
name "Income limits"
effective 2024-10-01 until 2026-09-30

source memo "Income limits" url "https://example.org/memo" licence "public-domain"

field household.region enum ["states", "alaska"] weight 1
field household.size int weight 1
  range 1..
field household.elderly bool weight 2
field income.gross decimal weight 2
  range 0..

table gross_limit decimal "Gross monthly income limit" unit "USD" {
  keys household.region, household.size
  period 2024-10-01 until 2025-09-30 {
    "states", 1   => 1632
    "states", 2..8 => 1632 + 571 * (household.size - 1)
    "states", 9.. => 5629 + 571 * (household.size - 8)
    "alaska", any => 2000 + 700 * household.size
  }
  period 2025-10-01 until 2026-09-30 {
    "states", 1..8 => 1696 + 596 * (household.size - 1)
    "states", 9.. => 5868 + 596 * (household.size - 8)
    "alaska", any => 2100 + 720 * household.size
  }
  cite memo "gross income limits"
}

table allowance int "Standard allowance" unit "USD" {
  period 2024-10-01 until 2025-09-30 { 400 }
  period 2025-10-01 until 2026-09-30 { 420 }
  cite memo "the allowance"
}

table elderly_extra int "Elderly extra" {
  keys household.elderly
  true => 100
  false => 0
  cite memo "the extra"
}

group gross all "Gross income" {
  criterion under "Gross income at or below the limit" {
    income.gross <= gross_limit + allowance + elderly_extra
    cite memo "gross income limits"
  }
}
`
