/* eslint-disable */
import * as types from './graphql';



/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  mutation CreateCategory($input: NewCategory!) {\n    createCategory(input: $input) {\n      id\n      name\n      description\n    }\n  }\n": typeof types.CreateCategoryDocument,
    "\n  mutation UpdateCategory($id: ID!, $input: CategoryUpdate!) {\n    updateCategory(id: $id, input: $input) {\n      id\n      name\n      description\n    }\n  }\n": typeof types.UpdateCategoryDocument,
    "\n  mutation DeleteCategory($id: ID!) {\n    deleteCategory(id: $id) {\n      id\n      name\n    }\n  }\n": typeof types.DeleteCategoryDocument,
    "\n  query CategoryWithPets($id: ID!, $filter: PetFilter, $first: Int, $after: String) {\n    category(id: $id) {\n      name\n      pets(filter: $filter, first: $first, after: $after) {\n        totalCount\n        nodes {\n          name\n          status\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n": typeof types.CategoryWithPetsDocument,
    "\n  query AllCategories {\n    categories {\n      nodes {\n        id\n      }\n    }\n  }\n": typeof types.AllCategoriesDocument,
    "\n  query PetById($id: ID!) {\n    pet(id: $id) {\n      id\n      categoryId\n      name\n      category {\n        id\n      }\n    }\n  }\n": typeof types.PetByIdDocument,
    "\n  query Inventory($petId: ID!) {\n    inventory(petId: $petId) {\n      petId\n      quantity\n      status\n      pet {\n        name\n      }\n    }\n  }\n": typeof types.InventoryDocument,
    "\n  query InventoryItems($filter: InventoryFilter, $first: Int, $after: String) {\n    inventoryItems(filter: $filter, first: $first, after: $after) {\n      totalCount\n      nodes {\n        petId\n        quantity\n        status\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": typeof types.InventoryItemsDocument,
    "\n  query StockOnly($petId: ID!) {\n    inventory(petId: $petId) {\n      petId\n      quantity\n    }\n  }\n": typeof types.StockOnlyDocument,
    "\n  query StockCount($filter: InventoryFilter, $first: Int) {\n    inventoryItems(filter: $filter, first: $first) {\n      totalCount\n      nodes {\n        petId\n        quantity\n      }\n    }\n  }\n": typeof types.StockCountDocument,
    "\n  query Summary {\n    inventorySummary {\n      status\n      quantity\n    }\n  }\n": typeof types.SummaryDocument,
    "\n  mutation UpdateInventory($petId: ID!, $input: InventoryUpdate!) {\n    updateInventory(petId: $petId, input: $input) {\n      petId\n      quantity\n      status\n    }\n  }\n": typeof types.UpdateInventoryDocument,
    "\n  query Orders($filter: OrderFilter, $first: Int, $after: String) {\n    orders(filter: $filter, first: $first, after: $after) {\n      totalCount\n      nodes {\n        id\n        petId\n        quantity\n        complete\n        shipDate\n        pet {\n          name\n          category {\n            name\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": typeof types.OrdersDocument,
    "\n  query PetOrders($id: ID!, $first: Int) {\n    pet(id: $id) {\n      orders(first: $first) {\n        totalCount\n        nodes {\n          id\n        }\n        pageInfo {\n          hasNextPage\n        }\n      }\n    }\n  }\n": typeof types.PetOrdersDocument,
    "\n  query PagePets($filter: PetFilter, $orderBy: PetOrder, $first: Int, $after: String, $last: Int, $before: String) {\n    pets(filter: $filter, orderBy: $orderBy, first: $first, after: $after, last: $last, before: $before) {\n      totalCount\n      edges {\n        cursor\n        node {\n          name\n        }\n      }\n      pageInfo {\n        hasNextPage\n        hasPreviousPage\n        startCursor\n        endCursor\n      }\n    }\n  }\n": typeof types.PagePetsDocument,
    "\n  mutation UpdatePetStatus($id: ID!, $name: String, $status: PetStatus) {\n    updatePet(id: $id, input: { name: $name, status: $status }) {\n      id\n      name\n      status\n    }\n  }\n": typeof types.UpdatePetStatusDocument,
    "\n  mutation CreatePetWithStatus($categoryId: ID!, $status: PetStatus) {\n    createPet(input: { name: \"Fresh\", categoryId: $categoryId, status: $status }) {\n      id\n      status\n    }\n  }\n": typeof types.CreatePetWithStatusDocument,
    "\n  query StockSummary {\n    inventorySummary {\n      status\n      quantity\n    }\n  }\n": typeof types.StockSummaryDocument,
    "\n  mutation DeletePetById($id: ID!) {\n    deletePet(id: $id) {\n      id\n    }\n  }\n": typeof types.DeletePetByIdDocument,
    "\n          mutation MovePet($id: ID!, $categoryId: ID!) {\n            updatePet(id: $id, input: { categoryId: $categoryId }) {\n              id\n            }\n          }\n        ": typeof types.MovePetDocument,
    "\n  mutation CreatePet($input: NewPet!) {\n    createPet(input: $input) {\n      id\n      name\n      categoryId\n      status\n      category {\n        id\n        name\n      }\n      inventory {\n        petId\n        quantity\n        status\n      }\n    }\n  }\n": typeof types.CreatePetDocument,
    "\n  query GetPet($id: ID!) {\n    pet(id: $id) {\n      id\n      name\n      status\n      categoryId\n    }\n  }\n": typeof types.GetPetDocument,
    "\n  mutation UpdatePet($id: ID!, $input: PetUpdate!) {\n    updatePet(id: $id, input: $input) {\n      id\n      name\n      categoryId\n      status\n    }\n  }\n": typeof types.UpdatePetDocument,
    "\n  mutation SetPetStatus($id: ID!, $status: PetStatus!) {\n    setPetStatus(id: $id, status: $status) {\n      id\n      status\n    }\n  }\n": typeof types.SetPetStatusDocument,
    "\n  mutation DeletePet($id: ID!) {\n    deletePet(id: $id) {\n      id\n      name\n    }\n  }\n": typeof types.DeletePetDocument,
    "\n  query PlannedPets($first: Int, $after: String, $last: Int, $before: String, $orderBy: PetOrder, $filter: PetFilter) {\n    pets(first: $first, after: $after, last: $last, before: $before, orderBy: $orderBy, filter: $filter) {\n      totalCount\n      edges {\n        cursor\n        node {\n          id\n          name\n          status\n          category {\n            id\n            name\n            description\n          }\n          inventory {\n            petId\n            quantity\n            status\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        hasPreviousPage\n        startCursor\n        endCursor\n      }\n    }\n  }\n": typeof types.PlannedPetsDocument,
    "\n  query PlannedOrders($first: Int, $after: String, $filter: OrderFilter) {\n    orders(first: $first, after: $after, filter: $filter) {\n      totalCount\n      nodes {\n        id\n        petId\n        quantity\n        complete\n        pet {\n          id\n          name\n          categoryId\n          status\n          category {\n            name\n          }\n          inventory {\n            quantity\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": typeof types.PlannedOrdersDocument,
    "\n  query PlannedCategories($first: Int, $pets: Int, $after: String, $filter: PetFilter) {\n    categories(first: $first) {\n      nodes {\n        id\n        name\n        pets(first: $pets, after: $after, filter: $filter) {\n          totalCount\n          nodes {\n            id\n            name\n            status\n            inventory {\n              quantity\n            }\n          }\n          pageInfo {\n            hasNextPage\n            endCursor\n          }\n        }\n      }\n    }\n  }\n": typeof types.PlannedCategoriesDocument,
    "\n  query PlannedTrimmedPages($first: Int, $last: Int, $before: String, $pets: Int) {\n    pets(first: $first, last: $last, before: $before) {\n      edges {\n        cursor\n        node {\n          id\n          name\n          category {\n            name\n          }\n          inventory {\n            quantity\n          }\n        }\n      }\n      pageInfo {\n        startCursor\n        endCursor\n      }\n    }\n    categories(first: 3) {\n      nodes {\n        name\n        pets(first: $pets) {\n          nodes {\n            name\n            inventory {\n              quantity\n            }\n          }\n          pageInfo {\n            endCursor\n          }\n        }\n      }\n    }\n  }\n": typeof types.PlannedTrimmedPagesDocument,
    "\n  query PlannedMixed($skip: Boolean!) {\n    categories(first: 3) {\n      edges {\n        node {\n          ...CategoryFields\n          few: pets(first: 1) {\n            nodes {\n              name\n            }\n          }\n        }\n      }\n    }\n    pets(first: 4) {\n      nodes {\n        ... on Pet {\n          name\n          category @skip(if: $skip) {\n            name\n          }\n        }\n      }\n    }\n  }\n  fragment CategoryFields on Category {\n    name\n    pets(first: 2) {\n      nodes {\n        name\n        inventory {\n          quantity\n        }\n        orders(first: 1) {\n          nodes {\n            id\n          }\n        }\n      }\n    }\n  }\n": typeof types.PlannedMixedDocument,
    "\n  query CompiledEveryRelation($id: ID!, $first: Int, $after: String) {\n    pet(id: $id) {\n      id\n      name\n      category {\n        id\n        name\n        description\n        pets(first: 2) {\n          totalCount\n          nodes {\n            name\n          }\n        }\n      }\n      inventory {\n        petId\n        quantity\n        status\n        pet {\n          id\n          status\n        }\n      }\n      orders(first: $first, after: $after) {\n        totalCount\n        edges {\n          cursor\n          node {\n            id\n            petId\n            quantity\n            shipDate\n            complete\n            pet {\n              name\n            }\n          }\n        }\n        pageInfo {\n          hasNextPage\n          hasPreviousPage\n          startCursor\n          endCursor\n        }\n      }\n    }\n    inventoryItems(first: $first, filter: { quantityBelow: 3 }) {\n      totalCount\n      nodes {\n        petId\n        quantity\n        status\n        pet {\n          __typename\n          name\n          category {\n            name\n          }\n        }\n      }\n    }\n    order(id: $id) {\n      id\n      shipDate\n      pet {\n        inventory {\n          quantity\n        }\n      }\n    }\n    inventory(petId: $id) {\n      quantity\n    }\n    category(id: $id) {\n      a: pets(first: 1) {\n        nodes {\n          id\n        }\n      }\n      b: pets(first: 3, filter: { status: AVAILABLE }) {\n        totalCount\n        edges {\n          cursor\n          node {\n            name\n            orders(first: 1) {\n              nodes {\n                id\n              }\n            }\n          }\n        }\n      }\n    }\n  }\n": typeof types.CompiledEveryRelationDocument,
    "\n  query CompiledTwinPaths {\n    categories(first: 4) {\n      nodes {\n        x: pets(first: 1) {\n          nodes {\n            id\n          }\n        }\n      }\n      edges {\n        node {\n          x: pets(first: 2) {\n            nodes {\n              name\n            }\n          }\n        }\n      }\n    }\n  }\n": typeof types.CompiledTwinPathsDocument,
    "\n  query CompiledTwoAliasesOneRefused($id: ID!) {\n    category(id: $id) {\n      a: pets(first: 1) {\n        nodes {\n          id\n        }\n      }\n      b: pets(first: 101) {\n        nodes {\n          id\n        }\n      }\n    }\n  }\n": typeof types.CompiledTwoAliasesOneRefusedDocument,
    "\n  query PlannedPet($id: ID!) {\n    pet(id: $id) {\n      id\n      name\n      categoryId\n      status\n    }\n  }\n": typeof types.PlannedPetDocument,
    "\n  query NarrowRows {\n    pets(first: 3) {\n      nodes {\n        name\n      }\n    }\n  }\n": typeof types.NarrowRowsDocument,
    "\n  query NarrowNested {\n    categories(first: 2) {\n      nodes {\n        pets(first: 2) {\n          nodes {\n            name\n          }\n        }\n      }\n    }\n  }\n": typeof types.NarrowNestedDocument,
    "\n  query NarrowJoined {\n    orders(first: 2) {\n      nodes {\n        quantity\n        pet {\n          name\n        }\n      }\n    }\n  }\n": typeof types.NarrowJoinedDocument,
    "\n  query PetsWithRelations($first: Int) {\n    pets(first: $first) {\n      nodes {\n        id\n        name\n        category {\n          name\n        }\n        inventory {\n          quantity\n          status\n        }\n      }\n    }\n  }\n": typeof types.PetsWithRelationsDocument,
    "\n  query OrdersWithPets($first: Int) {\n    orders(first: $first) {\n      nodes {\n        id\n        pet {\n          name\n          category {\n            name\n          }\n        }\n      }\n    }\n  }\n": typeof types.OrdersWithPetsDocument,
    "\n  query CategoriesWithPets($first: Int) {\n    categories(first: $first) {\n      nodes {\n        name\n        pets(first: 3) {\n          totalCount\n          nodes {\n            name\n            orders(first: 2) {\n              totalCount\n              nodes {\n                id\n              }\n            }\n          }\n        }\n      }\n    }\n  }\n": typeof types.CategoriesWithPetsDocument,
    "\n  query CategoriesPetsInventory($first: Int, $pets: Int) {\n    categories(first: $first) {\n      nodes {\n        id\n        name\n        pets(first: $pets) {\n          nodes {\n            id\n            name\n            status\n            inventory {\n              quantity\n            }\n          }\n          pageInfo {\n            hasNextPage\n            endCursor\n          }\n        }\n      }\n    }\n  }\n": typeof types.CategoriesPetsInventoryDocument,
    "\n  query PlannedPetById($id: ID!) {\n    pet(id: $id) {\n      id\n      name\n      categoryId\n      status\n    }\n  }\n": typeof types.PlannedPetByIdDocument,
    "\n  query CompiledPetsCounted($first: Int) {\n    pets(first: $first) {\n      totalCount\n      nodes {\n        name\n      }\n    }\n  }\n": typeof types.CompiledPetsCountedDocument,
    "\n  query CompiledPetsWithOrders($first: Int) {\n    pets(first: $first) {\n      nodes {\n        name\n        orders(first: 2) {\n          totalCount\n          nodes {\n            id\n            shipDate\n          }\n        }\n      }\n    }\n  }\n": typeof types.CompiledPetsWithOrdersDocument,
    "\n  query CompiledInventoryWithPets($first: Int) {\n    inventoryItems(first: $first) {\n      nodes {\n        quantity\n        pet {\n          name\n          category {\n            name\n          }\n        }\n      }\n    }\n  }\n": typeof types.CompiledInventoryWithPetsDocument,
    "\n  query CompiledPetWithRelations($id: ID!) {\n    pet(id: $id) {\n      name\n      category {\n        name\n      }\n      inventory {\n        quantity\n      }\n    }\n  }\n": typeof types.CompiledPetWithRelationsDocument,
    "\n  query CompiledTwoAliases($first: Int) {\n    categories(first: $first) {\n      nodes {\n        few: pets(first: 1) {\n          nodes {\n            id\n          }\n        }\n        available: pets(first: 5, filter: { status: AVAILABLE }) {\n          totalCount\n          edges {\n            cursor\n            node {\n              name\n            }\n          }\n        }\n      }\n    }\n  }\n": typeof types.CompiledTwoAliasesDocument,
    "\n  query CompiledDeepRelations($first: Int) {\n    categories(first: $first) {\n      nodes {\n        pets(first: 3) {\n          nodes {\n            category {\n              name\n            }\n          }\n        }\n      }\n    }\n    orders(first: $first) {\n      nodes {\n        pet {\n          orders(first: 2) {\n            nodes {\n              pet {\n                inventory {\n                  pet {\n                    name\n                  }\n                }\n              }\n            }\n          }\n        }\n      }\n    }\n  }\n": typeof types.CompiledDeepRelationsDocument,
    "\n  query CompiledSeveralRoots($id: ID!) {\n    pet(id: $id) {\n      name\n    }\n    category(id: $id) {\n      pets(first: 2) {\n        totalCount\n      }\n    }\n    order(id: $id) {\n      pet {\n        name\n      }\n    }\n    inventory(petId: $id) {\n      pet {\n        category {\n          name\n        }\n      }\n    }\n    pets(first: 2) {\n      totalCount\n    }\n  }\n": typeof types.CompiledSeveralRootsDocument,
    "\n  mutation PlaceOrderCounted($petId: ID!) {\n    placeOrder(input: { petId: $petId, quantity: 1 }) {\n      id\n      quantity\n    }\n  }\n": typeof types.PlaceOrderCountedDocument,
    "\n  mutation CompleteOrderCounted($id: ID!) {\n    completeOrder(id: $id) {\n      id\n      complete\n    }\n  }\n": typeof types.CompleteOrderCountedDocument,
    "\n  mutation CancelOrderCounted($id: ID!) {\n    cancelOrder(id: $id) {\n      id\n    }\n  }\n": typeof types.CancelOrderCountedDocument,
    "\n  mutation SetStockCounted($petId: ID!) {\n    updateInventory(petId: $petId, input: { quantity: 7 }) {\n      quantity\n      status\n    }\n  }\n": typeof types.SetStockCountedDocument,
    "\n  mutation DeletePetNow($id: ID!) {\n    deletePet(id: $id) {\n      id\n    }\n  }\n": typeof types.DeletePetNowDocument,
    "\n  query OrderById($id: ID!) {\n    order(id: $id) {\n      id\n      quantity\n      shipDate\n      pet {\n        id\n      }\n    }\n  }\n": typeof types.OrderByIdDocument,
    "\n  mutation PlaceOrder($input: NewOrder!) {\n    placeOrder(input: $input) {\n      id\n      petId\n      quantity\n      shipDate\n      complete\n      pet {\n        id\n        status\n        inventory {\n          quantity\n          status\n        }\n      }\n    }\n  }\n": typeof types.PlaceOrderDocument,
    "\n  mutation CompleteOrder($id: ID!) {\n    completeOrder(id: $id) {\n      id\n      petId\n      quantity\n      shipDate\n      complete\n    }\n  }\n": typeof types.CompleteOrderDocument,
    "\n  mutation CancelOrder($id: ID!) {\n    cancelOrder(id: $id) {\n      id\n      petId\n      quantity\n      shipDate\n      complete\n    }\n  }\n": typeof types.CancelOrderDocument,
    "\n  query PetStock($id: ID!) {\n    pet(id: $id) {\n      status\n      inventory {\n        quantity\n        status\n      }\n    }\n  }\n": typeof types.PetStockDocument,
    "\n  mutation SetStatus($id: ID!, $status: PetStatus!) {\n    setPetStatus(id: $id, status: $status) {\n      id\n      status\n    }\n  }\n": typeof types.SetStatusDocument,
    "\n  mutation SetStock($petId: ID!, $quantity: Int!) {\n    updateInventory(petId: $petId, input: { quantity: $quantity }) {\n      petId\n      quantity\n      status\n    }\n  }\n": typeof types.SetStockDocument,
    "\n  fragment CategoryCard_category on Category @refetchable(queryName: \"CategoryCardRefetchQuery\") {\n    id\n    name\n    description\n  }\n": typeof types.CategoryCard_CategoryFragmentDoc,
    "\n  fragment InventoryCard_item on InventoryItem @refetchable(queryName: \"InventoryCardRefetchQuery\") {\n    petId\n    quantity\n  }\n": typeof types.InventoryCard_ItemFragmentDoc,
    "\n  fragment OrderCard_order on Order @refetchable(queryName: \"OrderCardRefetchQuery\") {\n    id\n    quantity\n    complete\n    pet {\n      name\n    }\n  }\n": typeof types.OrderCard_OrderFragmentDoc,
    "\n  fragment PetCard_pet on Pet @refetchable(queryName: \"PetCardRefetchQuery\") {\n    id\n    name\n    status\n    category {\n      name\n    }\n  }\n": typeof types.PetCard_PetFragmentDoc,
};
const documents: Documents = {
    "\n  mutation CreateCategory($input: NewCategory!) {\n    createCategory(input: $input) {\n      id\n      name\n      description\n    }\n  }\n": types.CreateCategoryDocument,
    "\n  mutation UpdateCategory($id: ID!, $input: CategoryUpdate!) {\n    updateCategory(id: $id, input: $input) {\n      id\n      name\n      description\n    }\n  }\n": types.UpdateCategoryDocument,
    "\n  mutation DeleteCategory($id: ID!) {\n    deleteCategory(id: $id) {\n      id\n      name\n    }\n  }\n": types.DeleteCategoryDocument,
    "\n  query CategoryWithPets($id: ID!, $filter: PetFilter, $first: Int, $after: String) {\n    category(id: $id) {\n      name\n      pets(filter: $filter, first: $first, after: $after) {\n        totalCount\n        nodes {\n          name\n          status\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n": types.CategoryWithPetsDocument,
    "\n  query AllCategories {\n    categories {\n      nodes {\n        id\n      }\n    }\n  }\n": types.AllCategoriesDocument,
    "\n  query PetById($id: ID!) {\n    pet(id: $id) {\n      id\n      categoryId\n      name\n      category {\n        id\n      }\n    }\n  }\n": types.PetByIdDocument,
    "\n  query Inventory($petId: ID!) {\n    inventory(petId: $petId) {\n      petId\n      quantity\n      status\n      pet {\n        name\n      }\n    }\n  }\n": types.InventoryDocument,
    "\n  query InventoryItems($filter: InventoryFilter, $first: Int, $after: String) {\n    inventoryItems(filter: $filter, first: $first, after: $after) {\n      totalCount\n      nodes {\n        petId\n        quantity\n        status\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": types.InventoryItemsDocument,
    "\n  query StockOnly($petId: ID!) {\n    inventory(petId: $petId) {\n      petId\n      quantity\n    }\n  }\n": types.StockOnlyDocument,
    "\n  query StockCount($filter: InventoryFilter, $first: Int) {\n    inventoryItems(filter: $filter, first: $first) {\n      totalCount\n      nodes {\n        petId\n        quantity\n      }\n    }\n  }\n": types.StockCountDocument,
    "\n  query Summary {\n    inventorySummary {\n      status\n      quantity\n    }\n  }\n": types.SummaryDocument,
    "\n  mutation UpdateInventory($petId: ID!, $input: InventoryUpdate!) {\n    updateInventory(petId: $petId, input: $input) {\n      petId\n      quantity\n      status\n    }\n  }\n": types.UpdateInventoryDocument,
    "\n  query Orders($filter: OrderFilter, $first: Int, $after: String) {\n    orders(filter: $filter, first: $first, after: $after) {\n      totalCount\n      nodes {\n        id\n        petId\n        quantity\n        complete\n        shipDate\n        pet {\n          name\n          category {\n            name\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": types.OrdersDocument,
    "\n  query PetOrders($id: ID!, $first: Int) {\n    pet(id: $id) {\n      orders(first: $first) {\n        totalCount\n        nodes {\n          id\n        }\n        pageInfo {\n          hasNextPage\n        }\n      }\n    }\n  }\n": types.PetOrdersDocument,
    "\n  query PagePets($filter: PetFilter, $orderBy: PetOrder, $first: Int, $after: String, $last: Int, $before: String) {\n    pets(filter: $filter, orderBy: $orderBy, first: $first, after: $after, last: $last, before: $before) {\n      totalCount\n      edges {\n        cursor\n        node {\n          name\n        }\n      }\n      pageInfo {\n        hasNextPage\n        hasPreviousPage\n        startCursor\n        endCursor\n      }\n    }\n  }\n": types.PagePetsDocument,
    "\n  mutation UpdatePetStatus($id: ID!, $name: String, $status: PetStatus) {\n    updatePet(id: $id, input: { name: $name, status: $status }) {\n      id\n      name\n      status\n    }\n  }\n": types.UpdatePetStatusDocument,
    "\n  mutation CreatePetWithStatus($categoryId: ID!, $status: PetStatus) {\n    createPet(input: { name: \"Fresh\", categoryId: $categoryId, status: $status }) {\n      id\n      status\n    }\n  }\n": types.CreatePetWithStatusDocument,
    "\n  query StockSummary {\n    inventorySummary {\n      status\n      quantity\n    }\n  }\n": types.StockSummaryDocument,
    "\n  mutation DeletePetById($id: ID!) {\n    deletePet(id: $id) {\n      id\n    }\n  }\n": types.DeletePetByIdDocument,
    "\n          mutation MovePet($id: ID!, $categoryId: ID!) {\n            updatePet(id: $id, input: { categoryId: $categoryId }) {\n              id\n            }\n          }\n        ": types.MovePetDocument,
    "\n  mutation CreatePet($input: NewPet!) {\n    createPet(input: $input) {\n      id\n      name\n      categoryId\n      status\n      category {\n        id\n        name\n      }\n      inventory {\n        petId\n        quantity\n        status\n      }\n    }\n  }\n": types.CreatePetDocument,
    "\n  query GetPet($id: ID!) {\n    pet(id: $id) {\n      id\n      name\n      status\n      categoryId\n    }\n  }\n": types.GetPetDocument,
    "\n  mutation UpdatePet($id: ID!, $input: PetUpdate!) {\n    updatePet(id: $id, input: $input) {\n      id\n      name\n      categoryId\n      status\n    }\n  }\n": types.UpdatePetDocument,
    "\n  mutation SetPetStatus($id: ID!, $status: PetStatus!) {\n    setPetStatus(id: $id, status: $status) {\n      id\n      status\n    }\n  }\n": types.SetPetStatusDocument,
    "\n  mutation DeletePet($id: ID!) {\n    deletePet(id: $id) {\n      id\n      name\n    }\n  }\n": types.DeletePetDocument,
    "\n  query PlannedPets($first: Int, $after: String, $last: Int, $before: String, $orderBy: PetOrder, $filter: PetFilter) {\n    pets(first: $first, after: $after, last: $last, before: $before, orderBy: $orderBy, filter: $filter) {\n      totalCount\n      edges {\n        cursor\n        node {\n          id\n          name\n          status\n          category {\n            id\n            name\n            description\n          }\n          inventory {\n            petId\n            quantity\n            status\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        hasPreviousPage\n        startCursor\n        endCursor\n      }\n    }\n  }\n": types.PlannedPetsDocument,
    "\n  query PlannedOrders($first: Int, $after: String, $filter: OrderFilter) {\n    orders(first: $first, after: $after, filter: $filter) {\n      totalCount\n      nodes {\n        id\n        petId\n        quantity\n        complete\n        pet {\n          id\n          name\n          categoryId\n          status\n          category {\n            name\n          }\n          inventory {\n            quantity\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": types.PlannedOrdersDocument,
    "\n  query PlannedCategories($first: Int, $pets: Int, $after: String, $filter: PetFilter) {\n    categories(first: $first) {\n      nodes {\n        id\n        name\n        pets(first: $pets, after: $after, filter: $filter) {\n          totalCount\n          nodes {\n            id\n            name\n            status\n            inventory {\n              quantity\n            }\n          }\n          pageInfo {\n            hasNextPage\n            endCursor\n          }\n        }\n      }\n    }\n  }\n": types.PlannedCategoriesDocument,
    "\n  query PlannedTrimmedPages($first: Int, $last: Int, $before: String, $pets: Int) {\n    pets(first: $first, last: $last, before: $before) {\n      edges {\n        cursor\n        node {\n          id\n          name\n          category {\n            name\n          }\n          inventory {\n            quantity\n          }\n        }\n      }\n      pageInfo {\n        startCursor\n        endCursor\n      }\n    }\n    categories(first: 3) {\n      nodes {\n        name\n        pets(first: $pets) {\n          nodes {\n            name\n            inventory {\n              quantity\n            }\n          }\n          pageInfo {\n            endCursor\n          }\n        }\n      }\n    }\n  }\n": types.PlannedTrimmedPagesDocument,
    "\n  query PlannedMixed($skip: Boolean!) {\n    categories(first: 3) {\n      edges {\n        node {\n          ...CategoryFields\n          few: pets(first: 1) {\n            nodes {\n              name\n            }\n          }\n        }\n      }\n    }\n    pets(first: 4) {\n      nodes {\n        ... on Pet {\n          name\n          category @skip(if: $skip) {\n            name\n          }\n        }\n      }\n    }\n  }\n  fragment CategoryFields on Category {\n    name\n    pets(first: 2) {\n      nodes {\n        name\n        inventory {\n          quantity\n        }\n        orders(first: 1) {\n          nodes {\n            id\n          }\n        }\n      }\n    }\n  }\n": types.PlannedMixedDocument,
    "\n  query CompiledEveryRelation($id: ID!, $first: Int, $after: String) {\n    pet(id: $id) {\n      id\n      name\n      category {\n        id\n        name\n        description\n        pets(first: 2) {\n          totalCount\n          nodes {\n            name\n          }\n        }\n      }\n      inventory {\n        petId\n        quantity\n        status\n        pet {\n          id\n          status\n        }\n      }\n      orders(first: $first, after: $after) {\n        totalCount\n        edges {\n          cursor\n          node {\n            id\n            petId\n            quantity\n            shipDate\n            complete\n            pet {\n              name\n            }\n          }\n        }\n        pageInfo {\n          hasNextPage\n          hasPreviousPage\n          startCursor\n          endCursor\n        }\n      }\n    }\n    inventoryItems(first: $first, filter: { quantityBelow: 3 }) {\n      totalCount\n      nodes {\n        petId\n        quantity\n        status\n        pet {\n          __typename\n          name\n          category {\n            name\n          }\n        }\n      }\n    }\n    order(id: $id) {\n      id\n      shipDate\n      pet {\n        inventory {\n          quantity\n        }\n      }\n    }\n    inventory(petId: $id) {\n      quantity\n    }\n    category(id: $id) {\n      a: pets(first: 1) {\n        nodes {\n          id\n        }\n      }\n      b: pets(first: 3, filter: { status: AVAILABLE }) {\n        totalCount\n        edges {\n          cursor\n          node {\n            name\n            orders(first: 1) {\n              nodes {\n                id\n              }\n            }\n          }\n        }\n      }\n    }\n  }\n": types.CompiledEveryRelationDocument,
    "\n  query CompiledTwinPaths {\n    categories(first: 4) {\n      nodes {\n        x: pets(first: 1) {\n          nodes {\n            id\n          }\n        }\n      }\n      edges {\n        node {\n          x: pets(first: 2) {\n            nodes {\n              name\n            }\n          }\n        }\n      }\n    }\n  }\n": types.CompiledTwinPathsDocument,
    "\n  query CompiledTwoAliasesOneRefused($id: ID!) {\n    category(id: $id) {\n      a: pets(first: 1) {\n        nodes {\n          id\n        }\n      }\n      b: pets(first: 101) {\n        nodes {\n          id\n        }\n      }\n    }\n  }\n": types.CompiledTwoAliasesOneRefusedDocument,
    "\n  query PlannedPet($id: ID!) {\n    pet(id: $id) {\n      id\n      name\n      categoryId\n      status\n    }\n  }\n": types.PlannedPetDocument,
    "\n  query NarrowRows {\n    pets(first: 3) {\n      nodes {\n        name\n      }\n    }\n  }\n": types.NarrowRowsDocument,
    "\n  query NarrowNested {\n    categories(first: 2) {\n      nodes {\n        pets(first: 2) {\n          nodes {\n            name\n          }\n        }\n      }\n    }\n  }\n": types.NarrowNestedDocument,
    "\n  query NarrowJoined {\n    orders(first: 2) {\n      nodes {\n        quantity\n        pet {\n          name\n        }\n      }\n    }\n  }\n": types.NarrowJoinedDocument,
    "\n  query PetsWithRelations($first: Int) {\n    pets(first: $first) {\n      nodes {\n        id\n        name\n        category {\n          name\n        }\n        inventory {\n          quantity\n          status\n        }\n      }\n    }\n  }\n": types.PetsWithRelationsDocument,
    "\n  query OrdersWithPets($first: Int) {\n    orders(first: $first) {\n      nodes {\n        id\n        pet {\n          name\n          category {\n            name\n          }\n        }\n      }\n    }\n  }\n": types.OrdersWithPetsDocument,
    "\n  query CategoriesWithPets($first: Int) {\n    categories(first: $first) {\n      nodes {\n        name\n        pets(first: 3) {\n          totalCount\n          nodes {\n            name\n            orders(first: 2) {\n              totalCount\n              nodes {\n                id\n              }\n            }\n          }\n        }\n      }\n    }\n  }\n": types.CategoriesWithPetsDocument,
    "\n  query CategoriesPetsInventory($first: Int, $pets: Int) {\n    categories(first: $first) {\n      nodes {\n        id\n        name\n        pets(first: $pets) {\n          nodes {\n            id\n            name\n            status\n            inventory {\n              quantity\n            }\n          }\n          pageInfo {\n            hasNextPage\n            endCursor\n          }\n        }\n      }\n    }\n  }\n": types.CategoriesPetsInventoryDocument,
    "\n  query PlannedPetById($id: ID!) {\n    pet(id: $id) {\n      id\n      name\n      categoryId\n      status\n    }\n  }\n": types.PlannedPetByIdDocument,
    "\n  query CompiledPetsCounted($first: Int) {\n    pets(first: $first) {\n      totalCount\n      nodes {\n        name\n      }\n    }\n  }\n": types.CompiledPetsCountedDocument,
    "\n  query CompiledPetsWithOrders($first: Int) {\n    pets(first: $first) {\n      nodes {\n        name\n        orders(first: 2) {\n          totalCount\n          nodes {\n            id\n            shipDate\n          }\n        }\n      }\n    }\n  }\n": types.CompiledPetsWithOrdersDocument,
    "\n  query CompiledInventoryWithPets($first: Int) {\n    inventoryItems(first: $first) {\n      nodes {\n        quantity\n        pet {\n          name\n          category {\n            name\n          }\n        }\n      }\n    }\n  }\n": types.CompiledInventoryWithPetsDocument,
    "\n  query CompiledPetWithRelations($id: ID!) {\n    pet(id: $id) {\n      name\n      category {\n        name\n      }\n      inventory {\n        quantity\n      }\n    }\n  }\n": types.CompiledPetWithRelationsDocument,
    "\n  query CompiledTwoAliases($first: Int) {\n    categories(first: $first) {\n      nodes {\n        few: pets(first: 1) {\n          nodes {\n            id\n          }\n        }\n        available: pets(first: 5, filter: { status: AVAILABLE }) {\n          totalCount\n          edges {\n            cursor\n            node {\n              name\n            }\n          }\n        }\n      }\n    }\n  }\n": types.CompiledTwoAliasesDocument,
    "\n  query CompiledDeepRelations($first: Int) {\n    categories(first: $first) {\n      nodes {\n        pets(first: 3) {\n          nodes {\n            category {\n              name\n            }\n          }\n        }\n      }\n    }\n    orders(first: $first) {\n      nodes {\n        pet {\n          orders(first: 2) {\n            nodes {\n              pet {\n                inventory {\n                  pet {\n                    name\n                  }\n                }\n              }\n            }\n          }\n        }\n      }\n    }\n  }\n": types.CompiledDeepRelationsDocument,
    "\n  query CompiledSeveralRoots($id: ID!) {\n    pet(id: $id) {\n      name\n    }\n    category(id: $id) {\n      pets(first: 2) {\n        totalCount\n      }\n    }\n    order(id: $id) {\n      pet {\n        name\n      }\n    }\n    inventory(petId: $id) {\n      pet {\n        category {\n          name\n        }\n      }\n    }\n    pets(first: 2) {\n      totalCount\n    }\n  }\n": types.CompiledSeveralRootsDocument,
    "\n  mutation PlaceOrderCounted($petId: ID!) {\n    placeOrder(input: { petId: $petId, quantity: 1 }) {\n      id\n      quantity\n    }\n  }\n": types.PlaceOrderCountedDocument,
    "\n  mutation CompleteOrderCounted($id: ID!) {\n    completeOrder(id: $id) {\n      id\n      complete\n    }\n  }\n": types.CompleteOrderCountedDocument,
    "\n  mutation CancelOrderCounted($id: ID!) {\n    cancelOrder(id: $id) {\n      id\n    }\n  }\n": types.CancelOrderCountedDocument,
    "\n  mutation SetStockCounted($petId: ID!) {\n    updateInventory(petId: $petId, input: { quantity: 7 }) {\n      quantity\n      status\n    }\n  }\n": types.SetStockCountedDocument,
    "\n  mutation DeletePetNow($id: ID!) {\n    deletePet(id: $id) {\n      id\n    }\n  }\n": types.DeletePetNowDocument,
    "\n  query OrderById($id: ID!) {\n    order(id: $id) {\n      id\n      quantity\n      shipDate\n      pet {\n        id\n      }\n    }\n  }\n": types.OrderByIdDocument,
    "\n  mutation PlaceOrder($input: NewOrder!) {\n    placeOrder(input: $input) {\n      id\n      petId\n      quantity\n      shipDate\n      complete\n      pet {\n        id\n        status\n        inventory {\n          quantity\n          status\n        }\n      }\n    }\n  }\n": types.PlaceOrderDocument,
    "\n  mutation CompleteOrder($id: ID!) {\n    completeOrder(id: $id) {\n      id\n      petId\n      quantity\n      shipDate\n      complete\n    }\n  }\n": types.CompleteOrderDocument,
    "\n  mutation CancelOrder($id: ID!) {\n    cancelOrder(id: $id) {\n      id\n      petId\n      quantity\n      shipDate\n      complete\n    }\n  }\n": types.CancelOrderDocument,
    "\n  query PetStock($id: ID!) {\n    pet(id: $id) {\n      status\n      inventory {\n        quantity\n        status\n      }\n    }\n  }\n": types.PetStockDocument,
    "\n  mutation SetStatus($id: ID!, $status: PetStatus!) {\n    setPetStatus(id: $id, status: $status) {\n      id\n      status\n    }\n  }\n": types.SetStatusDocument,
    "\n  mutation SetStock($petId: ID!, $quantity: Int!) {\n    updateInventory(petId: $petId, input: { quantity: $quantity }) {\n      petId\n      quantity\n      status\n    }\n  }\n": types.SetStockDocument,
    "\n  fragment CategoryCard_category on Category @refetchable(queryName: \"CategoryCardRefetchQuery\") {\n    id\n    name\n    description\n  }\n": types.CategoryCard_CategoryFragmentDoc,
    "\n  fragment InventoryCard_item on InventoryItem @refetchable(queryName: \"InventoryCardRefetchQuery\") {\n    petId\n    quantity\n  }\n": types.InventoryCard_ItemFragmentDoc,
    "\n  fragment OrderCard_order on Order @refetchable(queryName: \"OrderCardRefetchQuery\") {\n    id\n    quantity\n    complete\n    pet {\n      name\n    }\n  }\n": types.OrderCard_OrderFragmentDoc,
    "\n  fragment PetCard_pet on Pet @refetchable(queryName: \"PetCardRefetchQuery\") {\n    id\n    name\n    status\n    category {\n      name\n    }\n  }\n": types.PetCard_PetFragmentDoc,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateCategory($input: NewCategory!) {\n    createCategory(input: $input) {\n      id\n      name\n      description\n    }\n  }\n"): typeof import('./graphql').CreateCategoryDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateCategory($id: ID!, $input: CategoryUpdate!) {\n    updateCategory(id: $id, input: $input) {\n      id\n      name\n      description\n    }\n  }\n"): typeof import('./graphql').UpdateCategoryDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteCategory($id: ID!) {\n    deleteCategory(id: $id) {\n      id\n      name\n    }\n  }\n"): typeof import('./graphql').DeleteCategoryDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CategoryWithPets($id: ID!, $filter: PetFilter, $first: Int, $after: String) {\n    category(id: $id) {\n      name\n      pets(filter: $filter, first: $first, after: $after) {\n        totalCount\n        nodes {\n          name\n          status\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').CategoryWithPetsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AllCategories {\n    categories {\n      nodes {\n        id\n      }\n    }\n  }\n"): typeof import('./graphql').AllCategoriesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PetById($id: ID!) {\n    pet(id: $id) {\n      id\n      categoryId\n      name\n      category {\n        id\n      }\n    }\n  }\n"): typeof import('./graphql').PetByIdDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Inventory($petId: ID!) {\n    inventory(petId: $petId) {\n      petId\n      quantity\n      status\n      pet {\n        name\n      }\n    }\n  }\n"): typeof import('./graphql').InventoryDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query InventoryItems($filter: InventoryFilter, $first: Int, $after: String) {\n    inventoryItems(filter: $filter, first: $first, after: $after) {\n      totalCount\n      nodes {\n        petId\n        quantity\n        status\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"): typeof import('./graphql').InventoryItemsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query StockOnly($petId: ID!) {\n    inventory(petId: $petId) {\n      petId\n      quantity\n    }\n  }\n"): typeof import('./graphql').StockOnlyDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query StockCount($filter: InventoryFilter, $first: Int) {\n    inventoryItems(filter: $filter, first: $first) {\n      totalCount\n      nodes {\n        petId\n        quantity\n      }\n    }\n  }\n"): typeof import('./graphql').StockCountDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Summary {\n    inventorySummary {\n      status\n      quantity\n    }\n  }\n"): typeof import('./graphql').SummaryDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateInventory($petId: ID!, $input: InventoryUpdate!) {\n    updateInventory(petId: $petId, input: $input) {\n      petId\n      quantity\n      status\n    }\n  }\n"): typeof import('./graphql').UpdateInventoryDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Orders($filter: OrderFilter, $first: Int, $after: String) {\n    orders(filter: $filter, first: $first, after: $after) {\n      totalCount\n      nodes {\n        id\n        petId\n        quantity\n        complete\n        shipDate\n        pet {\n          name\n          category {\n            name\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"): typeof import('./graphql').OrdersDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PetOrders($id: ID!, $first: Int) {\n    pet(id: $id) {\n      orders(first: $first) {\n        totalCount\n        nodes {\n          id\n        }\n        pageInfo {\n          hasNextPage\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').PetOrdersDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PagePets($filter: PetFilter, $orderBy: PetOrder, $first: Int, $after: String, $last: Int, $before: String) {\n    pets(filter: $filter, orderBy: $orderBy, first: $first, after: $after, last: $last, before: $before) {\n      totalCount\n      edges {\n        cursor\n        node {\n          name\n        }\n      }\n      pageInfo {\n        hasNextPage\n        hasPreviousPage\n        startCursor\n        endCursor\n      }\n    }\n  }\n"): typeof import('./graphql').PagePetsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdatePetStatus($id: ID!, $name: String, $status: PetStatus) {\n    updatePet(id: $id, input: { name: $name, status: $status }) {\n      id\n      name\n      status\n    }\n  }\n"): typeof import('./graphql').UpdatePetStatusDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreatePetWithStatus($categoryId: ID!, $status: PetStatus) {\n    createPet(input: { name: \"Fresh\", categoryId: $categoryId, status: $status }) {\n      id\n      status\n    }\n  }\n"): typeof import('./graphql').CreatePetWithStatusDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query StockSummary {\n    inventorySummary {\n      status\n      quantity\n    }\n  }\n"): typeof import('./graphql').StockSummaryDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeletePetById($id: ID!) {\n    deletePet(id: $id) {\n      id\n    }\n  }\n"): typeof import('./graphql').DeletePetByIdDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n          mutation MovePet($id: ID!, $categoryId: ID!) {\n            updatePet(id: $id, input: { categoryId: $categoryId }) {\n              id\n            }\n          }\n        "): typeof import('./graphql').MovePetDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreatePet($input: NewPet!) {\n    createPet(input: $input) {\n      id\n      name\n      categoryId\n      status\n      category {\n        id\n        name\n      }\n      inventory {\n        petId\n        quantity\n        status\n      }\n    }\n  }\n"): typeof import('./graphql').CreatePetDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query GetPet($id: ID!) {\n    pet(id: $id) {\n      id\n      name\n      status\n      categoryId\n    }\n  }\n"): typeof import('./graphql').GetPetDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdatePet($id: ID!, $input: PetUpdate!) {\n    updatePet(id: $id, input: $input) {\n      id\n      name\n      categoryId\n      status\n    }\n  }\n"): typeof import('./graphql').UpdatePetDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetPetStatus($id: ID!, $status: PetStatus!) {\n    setPetStatus(id: $id, status: $status) {\n      id\n      status\n    }\n  }\n"): typeof import('./graphql').SetPetStatusDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeletePet($id: ID!) {\n    deletePet(id: $id) {\n      id\n      name\n    }\n  }\n"): typeof import('./graphql').DeletePetDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PlannedPets($first: Int, $after: String, $last: Int, $before: String, $orderBy: PetOrder, $filter: PetFilter) {\n    pets(first: $first, after: $after, last: $last, before: $before, orderBy: $orderBy, filter: $filter) {\n      totalCount\n      edges {\n        cursor\n        node {\n          id\n          name\n          status\n          category {\n            id\n            name\n            description\n          }\n          inventory {\n            petId\n            quantity\n            status\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        hasPreviousPage\n        startCursor\n        endCursor\n      }\n    }\n  }\n"): typeof import('./graphql').PlannedPetsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PlannedOrders($first: Int, $after: String, $filter: OrderFilter) {\n    orders(first: $first, after: $after, filter: $filter) {\n      totalCount\n      nodes {\n        id\n        petId\n        quantity\n        complete\n        pet {\n          id\n          name\n          categoryId\n          status\n          category {\n            name\n          }\n          inventory {\n            quantity\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"): typeof import('./graphql').PlannedOrdersDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PlannedCategories($first: Int, $pets: Int, $after: String, $filter: PetFilter) {\n    categories(first: $first) {\n      nodes {\n        id\n        name\n        pets(first: $pets, after: $after, filter: $filter) {\n          totalCount\n          nodes {\n            id\n            name\n            status\n            inventory {\n              quantity\n            }\n          }\n          pageInfo {\n            hasNextPage\n            endCursor\n          }\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').PlannedCategoriesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PlannedTrimmedPages($first: Int, $last: Int, $before: String, $pets: Int) {\n    pets(first: $first, last: $last, before: $before) {\n      edges {\n        cursor\n        node {\n          id\n          name\n          category {\n            name\n          }\n          inventory {\n            quantity\n          }\n        }\n      }\n      pageInfo {\n        startCursor\n        endCursor\n      }\n    }\n    categories(first: 3) {\n      nodes {\n        name\n        pets(first: $pets) {\n          nodes {\n            name\n            inventory {\n              quantity\n            }\n          }\n          pageInfo {\n            endCursor\n          }\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').PlannedTrimmedPagesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PlannedMixed($skip: Boolean!) {\n    categories(first: 3) {\n      edges {\n        node {\n          ...CategoryFields\n          few: pets(first: 1) {\n            nodes {\n              name\n            }\n          }\n        }\n      }\n    }\n    pets(first: 4) {\n      nodes {\n        ... on Pet {\n          name\n          category @skip(if: $skip) {\n            name\n          }\n        }\n      }\n    }\n  }\n  fragment CategoryFields on Category {\n    name\n    pets(first: 2) {\n      nodes {\n        name\n        inventory {\n          quantity\n        }\n        orders(first: 1) {\n          nodes {\n            id\n          }\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').PlannedMixedDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CompiledEveryRelation($id: ID!, $first: Int, $after: String) {\n    pet(id: $id) {\n      id\n      name\n      category {\n        id\n        name\n        description\n        pets(first: 2) {\n          totalCount\n          nodes {\n            name\n          }\n        }\n      }\n      inventory {\n        petId\n        quantity\n        status\n        pet {\n          id\n          status\n        }\n      }\n      orders(first: $first, after: $after) {\n        totalCount\n        edges {\n          cursor\n          node {\n            id\n            petId\n            quantity\n            shipDate\n            complete\n            pet {\n              name\n            }\n          }\n        }\n        pageInfo {\n          hasNextPage\n          hasPreviousPage\n          startCursor\n          endCursor\n        }\n      }\n    }\n    inventoryItems(first: $first, filter: { quantityBelow: 3 }) {\n      totalCount\n      nodes {\n        petId\n        quantity\n        status\n        pet {\n          __typename\n          name\n          category {\n            name\n          }\n        }\n      }\n    }\n    order(id: $id) {\n      id\n      shipDate\n      pet {\n        inventory {\n          quantity\n        }\n      }\n    }\n    inventory(petId: $id) {\n      quantity\n    }\n    category(id: $id) {\n      a: pets(first: 1) {\n        nodes {\n          id\n        }\n      }\n      b: pets(first: 3, filter: { status: AVAILABLE }) {\n        totalCount\n        edges {\n          cursor\n          node {\n            name\n            orders(first: 1) {\n              nodes {\n                id\n              }\n            }\n          }\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').CompiledEveryRelationDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CompiledTwinPaths {\n    categories(first: 4) {\n      nodes {\n        x: pets(first: 1) {\n          nodes {\n            id\n          }\n        }\n      }\n      edges {\n        node {\n          x: pets(first: 2) {\n            nodes {\n              name\n            }\n          }\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').CompiledTwinPathsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CompiledTwoAliasesOneRefused($id: ID!) {\n    category(id: $id) {\n      a: pets(first: 1) {\n        nodes {\n          id\n        }\n      }\n      b: pets(first: 101) {\n        nodes {\n          id\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').CompiledTwoAliasesOneRefusedDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PlannedPet($id: ID!) {\n    pet(id: $id) {\n      id\n      name\n      categoryId\n      status\n    }\n  }\n"): typeof import('./graphql').PlannedPetDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query NarrowRows {\n    pets(first: 3) {\n      nodes {\n        name\n      }\n    }\n  }\n"): typeof import('./graphql').NarrowRowsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query NarrowNested {\n    categories(first: 2) {\n      nodes {\n        pets(first: 2) {\n          nodes {\n            name\n          }\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').NarrowNestedDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query NarrowJoined {\n    orders(first: 2) {\n      nodes {\n        quantity\n        pet {\n          name\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').NarrowJoinedDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PetsWithRelations($first: Int) {\n    pets(first: $first) {\n      nodes {\n        id\n        name\n        category {\n          name\n        }\n        inventory {\n          quantity\n          status\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').PetsWithRelationsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query OrdersWithPets($first: Int) {\n    orders(first: $first) {\n      nodes {\n        id\n        pet {\n          name\n          category {\n            name\n          }\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').OrdersWithPetsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CategoriesWithPets($first: Int) {\n    categories(first: $first) {\n      nodes {\n        name\n        pets(first: 3) {\n          totalCount\n          nodes {\n            name\n            orders(first: 2) {\n              totalCount\n              nodes {\n                id\n              }\n            }\n          }\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').CategoriesWithPetsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CategoriesPetsInventory($first: Int, $pets: Int) {\n    categories(first: $first) {\n      nodes {\n        id\n        name\n        pets(first: $pets) {\n          nodes {\n            id\n            name\n            status\n            inventory {\n              quantity\n            }\n          }\n          pageInfo {\n            hasNextPage\n            endCursor\n          }\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').CategoriesPetsInventoryDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PlannedPetById($id: ID!) {\n    pet(id: $id) {\n      id\n      name\n      categoryId\n      status\n    }\n  }\n"): typeof import('./graphql').PlannedPetByIdDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CompiledPetsCounted($first: Int) {\n    pets(first: $first) {\n      totalCount\n      nodes {\n        name\n      }\n    }\n  }\n"): typeof import('./graphql').CompiledPetsCountedDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CompiledPetsWithOrders($first: Int) {\n    pets(first: $first) {\n      nodes {\n        name\n        orders(first: 2) {\n          totalCount\n          nodes {\n            id\n            shipDate\n          }\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').CompiledPetsWithOrdersDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CompiledInventoryWithPets($first: Int) {\n    inventoryItems(first: $first) {\n      nodes {\n        quantity\n        pet {\n          name\n          category {\n            name\n          }\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').CompiledInventoryWithPetsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CompiledPetWithRelations($id: ID!) {\n    pet(id: $id) {\n      name\n      category {\n        name\n      }\n      inventory {\n        quantity\n      }\n    }\n  }\n"): typeof import('./graphql').CompiledPetWithRelationsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CompiledTwoAliases($first: Int) {\n    categories(first: $first) {\n      nodes {\n        few: pets(first: 1) {\n          nodes {\n            id\n          }\n        }\n        available: pets(first: 5, filter: { status: AVAILABLE }) {\n          totalCount\n          edges {\n            cursor\n            node {\n              name\n            }\n          }\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').CompiledTwoAliasesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CompiledDeepRelations($first: Int) {\n    categories(first: $first) {\n      nodes {\n        pets(first: 3) {\n          nodes {\n            category {\n              name\n            }\n          }\n        }\n      }\n    }\n    orders(first: $first) {\n      nodes {\n        pet {\n          orders(first: 2) {\n            nodes {\n              pet {\n                inventory {\n                  pet {\n                    name\n                  }\n                }\n              }\n            }\n          }\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').CompiledDeepRelationsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CompiledSeveralRoots($id: ID!) {\n    pet(id: $id) {\n      name\n    }\n    category(id: $id) {\n      pets(first: 2) {\n        totalCount\n      }\n    }\n    order(id: $id) {\n      pet {\n        name\n      }\n    }\n    inventory(petId: $id) {\n      pet {\n        category {\n          name\n        }\n      }\n    }\n    pets(first: 2) {\n      totalCount\n    }\n  }\n"): typeof import('./graphql').CompiledSeveralRootsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation PlaceOrderCounted($petId: ID!) {\n    placeOrder(input: { petId: $petId, quantity: 1 }) {\n      id\n      quantity\n    }\n  }\n"): typeof import('./graphql').PlaceOrderCountedDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CompleteOrderCounted($id: ID!) {\n    completeOrder(id: $id) {\n      id\n      complete\n    }\n  }\n"): typeof import('./graphql').CompleteOrderCountedDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CancelOrderCounted($id: ID!) {\n    cancelOrder(id: $id) {\n      id\n    }\n  }\n"): typeof import('./graphql').CancelOrderCountedDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetStockCounted($petId: ID!) {\n    updateInventory(petId: $petId, input: { quantity: 7 }) {\n      quantity\n      status\n    }\n  }\n"): typeof import('./graphql').SetStockCountedDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeletePetNow($id: ID!) {\n    deletePet(id: $id) {\n      id\n    }\n  }\n"): typeof import('./graphql').DeletePetNowDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query OrderById($id: ID!) {\n    order(id: $id) {\n      id\n      quantity\n      shipDate\n      pet {\n        id\n      }\n    }\n  }\n"): typeof import('./graphql').OrderByIdDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation PlaceOrder($input: NewOrder!) {\n    placeOrder(input: $input) {\n      id\n      petId\n      quantity\n      shipDate\n      complete\n      pet {\n        id\n        status\n        inventory {\n          quantity\n          status\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').PlaceOrderDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CompleteOrder($id: ID!) {\n    completeOrder(id: $id) {\n      id\n      petId\n      quantity\n      shipDate\n      complete\n    }\n  }\n"): typeof import('./graphql').CompleteOrderDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CancelOrder($id: ID!) {\n    cancelOrder(id: $id) {\n      id\n      petId\n      quantity\n      shipDate\n      complete\n    }\n  }\n"): typeof import('./graphql').CancelOrderDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PetStock($id: ID!) {\n    pet(id: $id) {\n      status\n      inventory {\n        quantity\n        status\n      }\n    }\n  }\n"): typeof import('./graphql').PetStockDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetStatus($id: ID!, $status: PetStatus!) {\n    setPetStatus(id: $id, status: $status) {\n      id\n      status\n    }\n  }\n"): typeof import('./graphql').SetStatusDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetStock($petId: ID!, $quantity: Int!) {\n    updateInventory(petId: $petId, input: { quantity: $quantity }) {\n      petId\n      quantity\n      status\n    }\n  }\n"): typeof import('./graphql').SetStockDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment CategoryCard_category on Category @refetchable(queryName: \"CategoryCardRefetchQuery\") {\n    id\n    name\n    description\n  }\n"): typeof import('./graphql').CategoryCard_CategoryFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment InventoryCard_item on InventoryItem @refetchable(queryName: \"InventoryCardRefetchQuery\") {\n    petId\n    quantity\n  }\n"): typeof import('./graphql').InventoryCard_ItemFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment OrderCard_order on Order @refetchable(queryName: \"OrderCardRefetchQuery\") {\n    id\n    quantity\n    complete\n    pet {\n      name\n    }\n  }\n"): typeof import('./graphql').OrderCard_OrderFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment PetCard_pet on Pet @refetchable(queryName: \"PetCardRefetchQuery\") {\n    id\n    name\n    status\n    category {\n      name\n    }\n  }\n"): typeof import('./graphql').PetCard_PetFragmentDoc;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
