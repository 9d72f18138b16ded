// A component's data needs, as a Relay app writes them: compiled by relay-compiler in test/relay/relay.test.ts.
const graphql = String.raw;

export const OrderCardFragment = graphql`
  fragment OrderCard_order on Order @refetchable(queryName: "OrderCardRefetchQuery") {
    id
    quantity
    complete
    pet {
      name
    }
  }
`;
