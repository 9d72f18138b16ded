// A component's data needs, as a Relay app writes them: compiled by relay-compiler in test/relay/relay.test.ts.
const graphql = String.raw;

export const InventoryCardFragment = graphql`
  fragment InventoryCard_item on InventoryItem @refetchable(queryName: "InventoryCardRefetchQuery") {
    petId
    quantity
  }
`;
