// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./safe-erc20.sol";

/// The contract users approve. Only its proxy may move approved tokens, so a router
/// upgrade never needs new user approvals.
contract TokenApprove {
    address public immutable owner;
    address public proxy;

    constructor() {
        owner = msg.sender;
    }

    function setProxy(address newProxy) external {
        require(msg.sender == owner, "TokenApprove: not owner");
        proxy = newProxy;
    }

    function claimTokens(address token, address who, address dest, uint256 amount) external {
        require(msg.sender == proxy, "TokenApprove: access restricted");
        if (amount > 0) SafeERC20Calls.safeTransferFrom(token, who, dest, amount);
    }
}

/// Holds the list of routers allowed to pull through TokenApprove.
contract TokenApproveProxy {
    address public immutable owner;
    TokenApprove public immutable tokenApprove;
    mapping(address => bool) public allowedApprove;

    constructor(TokenApprove approve) {
        owner = msg.sender;
        tokenApprove = approve;
    }

    function addProxy(address router) external {
        require(msg.sender == owner, "TokenApproveProxy: not owner");
        allowedApprove[router] = true;
    }

    function removeProxy(address router) external {
        require(msg.sender == owner, "TokenApproveProxy: not owner");
        allowedApprove[router] = false;
    }

    function claimTokens(address token, address who, address dest, uint256 amount) external {
        require(allowedApprove[msg.sender], "TokenApproveProxy: access restricted");
        tokenApprove.claimTokens(token, who, dest, amount);
    }
}
