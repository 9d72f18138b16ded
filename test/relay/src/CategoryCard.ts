// A component's data needs, as a Relay app writes them: compiled by relay-compiler in test/relay/relay.test.ts.
const graphql = String.raw;

export const CategoryCardFragment = graphql`
  fragment CategoryCard_category on Category @refetchable(queryName: "CategoryCardRefetchQuery") {
    id
    name
    description
  }
`;
