/** The read shapes whose statements bench/explain.ts and bench/sql-cpu.ts look into. */
import { W1_QUERY, W2_PAGE, W2_QUERY, W3_PAGE, W3_QUERY, W6_PAGE, W6_QUERY } from './workloads';

/** The compiled read shapes: the bench's workloads and three shapes no workload names. */
export const SHAPES: { name: string; query: string; variables: Record<string, unknown> }[] = [
  { name: 'W1 pet(id)', query: W1_QUERY, variables: { id: '17' } },
  { name: 'W2 pets with category and inventory', query: W2_QUERY, variables: { first: W2_PAGE } },
  { name: 'W3 orders with pet and its category', query: W3_QUERY, variables: { first: W3_PAGE } },
  { name: 'W6 categories with pets and inventory', query: W6_QUERY, variables: { first: W6_PAGE, pets: W6_PAGE } },
  {
    name: 'U1 filtered, name-ordered pets with a nested page of orders and its count',
    query:
      'query U1 { pets(first: 20, orderBy: { field: NAME, direction: DESC }, filter: { status: AVAILABLE }) { totalCount nodes { id name orders(first: 5) { totalCount nodes { id quantity shipDate } } } } }',
    variables: {},
  },
  {
    name: 'U2 inventory items with their to-one chain',
    query:
      'query U2 { inventoryItems(first: 50) { nodes { quantity status pet { id name category { id name } } } pageInfo { endCursor } } }',
    variables: {},
  },
  {
    name: 'U3 pet(id) with category, inventory and orders',
    query:
      'query U3($id: ID!) { pet(id: $id) { name category { name } inventory { quantity } orders(first: 10) { totalCount nodes { id complete } } } }',
    variables: { id: '17' },
  },
];
