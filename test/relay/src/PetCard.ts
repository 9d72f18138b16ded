// A component's data needs, as a Relay app writes them: compiled by relay-compiler in test/relay/relay.test.ts.
const graphql = String.raw;

export const PetCardFragment = graphql`
  fragment PetCard_pet on Pet @refetchable(queryName: "PetCardRefetchQuery") {
    id
    name
    status
    category {
      name
    }
  }
`;
